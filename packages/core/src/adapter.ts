// @reportkit/core/adapter: for authors of adapters (a framework's handler around the receiver),
// dedupe stores, report queues and their workers. Apps import from "@reportkit/core" (index.ts).

export {
  type OptionReader,
  type OptionRules,
  readOptions,
  shown,
} from "./base/attorney.js";
export { parseLenientJson } from "./base/parse-json.js";
export {
  type BodyStream,
  type EnvRecord,
  type ReceiverHeaders,
  type ReceiverRequest,
  type ReceiverResponse,
  webBody,
} from "./base/types.js";
export { answeredWithin, within } from "./base/within.js";
export { phoneKeysOf } from "./composed/compile-template.js";
export { maskDigits, type Redaction, redactRequest } from "./process/redact-request.js";
export type { AnyHandler, KindHandlers } from "./process/run-handler.js";
export {
  type AdapterReceiver,
  type AdapterReceiverSettings,
  type Attachable,
  adapterReceiver,
  attachable,
} from "./receiver/adapter-receiver.js";
export type { RequestEnvSecret } from "./receiver/check-options.js";
export {
  credentialsOf,
  type EnvCredentials,
  SECRET_ENV,
  VERIFICATION_TOKEN_ENV,
} from "./receiver/env.js";
export { HANDLER_OPTIONS, type HandlerOption } from "./receiver/options.js";
export {
  backoff,
  DEFAULT_PARKING,
  distinctLines,
  msGroup,
  type Parked,
  type ParkingOptions,
  parkAgain,
  traceOf,
  workerDispatch,
} from "./receiver/worker-kit.js";
export { REPORT_MEDIA_TYPES } from "./request/read-body.js";
export {
  type ClaimResult,
  DEFAULT_DEDUPE_TTL_MS,
  DEFAULT_LEASE_MS,
  type DedupeStore,
  type FailureJournal,
  type JournalBodies,
  type JournalEntry,
  type JournalRecord,
  type JournalRequest,
  PROVIDER_RETRY_WINDOW_MS,
} from "./store-kit/dedupe-store.js";
export {
  DEFAULT_JOURNAL_LIMIT,
  DEFAULT_JOURNAL_MAX_ENTRIES,
  DEFAULT_JOURNAL_RETENTION_MS,
  JOURNAL_STATUSES,
  type JournalFilter,
  type JournalLimits,
  type JournalQuery,
  type JournalStatus,
  journalLimits,
  journalQuery,
  type ReadableJournal,
} from "./store-kit/journal-reader.js";
export type { ReportQueue } from "./store-kit/report-queue.js";
export { reasonOf, StoreError } from "./store-kit/store-error.js";
export type { ReportOutcome, ReportSpan, Telemetry, TraceCarrier } from "./store-kit/telemetry.js";
