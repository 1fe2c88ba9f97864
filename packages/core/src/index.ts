// The wire payloads are @reportkit/wire's, shared with the sandbox; the zod schemas in schemas.ts are
// checked against them (wire-payloads.test-d.ts).
export type { CallPayload, DeliveryPayload } from "@reportkit/wire";
export { PROVIDER_TIME_ZONE } from "@reportkit/wire";
export { type Attachable, attachable, type HandlerKind } from "./attachable.js";
export {
  type BearerResult,
  checkBearer,
  type TokenOption,
  timingSafeEqual,
} from "./check-bearer.js";
export {
  CALL_VARIABLES,
  type ComposedCallReport,
  type ComposedDeliveryReport,
  type ComposedTemplate,
  ComposedTemplateError,
  DELIVERY_VARIABLES,
  type TemplateProblem,
  type TemplateVariables,
} from "./composed.js";
export type { ReportContext } from "./context.js";
export {
  createReceiver,
  type Receiver,
  type ReceiverRequest,
  type ReceiverResponse,
  type RefusalCode,
} from "./create-receiver.js";
export { REPORT_MEDIA_TYPES } from "./decode-body.js";
export { defaultDedupeKey } from "./dedupe-key.js";
export {
  type ClaimResult,
  DEFAULT_DEDUPE_TTL_MS,
  DEFAULT_LEASE_MS,
  type DedupeStore,
  PROVIDER_RETRY_WINDOW_MS,
} from "./dedupe-store.js";
export { TOKEN_ENV, withEnvToken } from "./env-token.js";
export {
  ERROR_STATUS,
  type ErrorCode,
  type ReportError,
  type ReportErrorCode,
  ReportkitError,
} from "./errors.js";
export type { ReceiverHeaders } from "./headers.js";
export { type MemoryDedupeOptions, memoryDedupe } from "./memory-dedupe.js";
export { type ParseOptions, type ParseResult, parseReport } from "./parse-report.js";
export type { ReceiverBody, WebBody } from "./read-body.js";
export type { BodyDone, BodyHeaders, NodeStyleStream } from "./read-stream.js";
export type { ReceiverLogger } from "./receiver-log.js";
export {
  type CallReportFor,
  DEFAULT_MAX_BODY_BYTES,
  type DeliveryReportFor,
  type ErrorHandler,
  type Handler,
  type ReceiverOptions,
  takesReports,
} from "./receiver-options.js";
export { reportFromJson } from "./report-json.js";
export type { ReportQueue } from "./report-queue.js";
export {
  CALL_STATUSES,
  CallPayloadSchema,
  type CallReport,
  CallReportSchema,
  type CallStatus,
  DELIVERY_STATUSES,
  DeliveryPayloadSchema,
  type DeliveryReport,
  DeliveryReportSchema,
  type DeliveryStatus,
  type Report,
  type ReportWarning,
  ReportWarningSchema,
} from "./schemas.js";
