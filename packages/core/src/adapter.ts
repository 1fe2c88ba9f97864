// @reportkit/core/adapter: for authors of adapters (a framework's handler around the receiver),
// dedupe stores and report queues. Apps import from "@reportkit/core" (index.ts).
export {
  type AdapterReceiver,
  type AdapterReceiverSettings,
  adapterReceiver,
  type EnvRecord,
} from "./adapter-receiver.js";
export { type Attachable, attachable, type HandlerKind } from "./attachable.js";
export {
  type ClaimResult,
  DEFAULT_DEDUPE_TTL_MS,
  DEFAULT_LEASE_MS,
  type DedupeStore,
  type FailureJournal,
  type JournalEntry,
  type JournalRecord,
  type JournalRequest,
  PROVIDER_RETRY_WINDOW_MS,
} from "./dedupe-store.js";
export { TOKEN_ENV, withEnvToken } from "./env-token.js";
export type { ReceiverHeaders } from "./headers.js";
export { REPORT_MEDIA_TYPES } from "./media-type.js";
export { takesReports } from "./receiver-options.js";
export { reportFromJson } from "./report-json.js";
export type { ReportQueue } from "./report-queue.js";
export {
  DEFAULT_JOURNAL_LIMIT,
  JOURNAL_STATUSES,
  type JournalFilter,
  type JournalQuery,
  type JournalStatus,
  journalQuery,
  type ReadableJournal,
} from "./store-kit/journal-reader.js";
export {
  type OptionReader,
  type OptionRules,
  readOptions,
  shown,
} from "./store-kit/option-checks.js";
export { reasonOf, StoreError } from "./store-kit/store-error.js";
export type { ReportOutcome, ReportSpan, Telemetry, TraceCarrier } from "./telemetry.js";
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
} from "./types.js";
