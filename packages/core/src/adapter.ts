// @reportkit/core/adapter: for authors of adapters (a framework's handler around the receiver),
// dedupe stores and report queues. Apps import from "@reportkit/core" (index.ts).

export { REPORT_MEDIA_TYPES } from "./body/media-type.js";
export { type AdapterReceiverSettings, adapterReceiver } from "./receiver/adapter-receiver.js";
export type { HandlerKind } from "./receiver/attach-handlers.js";
export { type Attachable, attachable } from "./receiver/attachable.js";
export type { RequestEnvToken } from "./receiver/credential-options.js";
export {
  credentialsOf,
  type EnvCredentials,
  type EnvRecord,
  LEGACY_SECRET_ENV,
  SECRET_ENV,
  VERIFICATION_TOKEN_ENV,
} from "./receiver/env-credentials.js";
export { RECEIVER_OPTION_NAMES } from "./receiver/receiver-options.js";
export type {
  BodyDone,
  BodyHeaders,
  NodeStyleStream,
  Receiver,
  ReceiverBody,
  ReceiverRequest,
  ReceiverResponse,
  RefusalCode,
  WebBody,
} from "./receiver/types.js";
export { reportFromJson } from "./report/report-json.js";
export type { ReceiverHeaders } from "./request/headers.js";
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
export {
  type OptionReader,
  type OptionRules,
  readOptions,
  shown,
} from "./store-kit/option-checks.js";
export type { ReportQueue } from "./store-kit/report-queue.js";
export { reasonOf, StoreError } from "./store-kit/store-error.js";
export type { ReportOutcome, ReportSpan, Telemetry, TraceCarrier } from "./store-kit/telemetry.js";
