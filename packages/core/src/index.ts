// @reportkit/core: the user API. Adapter, store and queue authors import from
// "@reportkit/core/adapter" (adapter.ts).

export {
  CALL_OUTCOMES,
  CALL_STATUS_TABLE,
  CALL_VARIABLES,
  type CallOutcome,
  type CallPayload,
  type ComposedTemplate,
  classifyCallStatus,
  classifyDeliveryStatus,
  DELIVERY_OUTCOMES,
  DELIVERY_STATUS_TABLE,
  DELIVERY_VARIABLES,
  type DeliveryOutcome,
  type DeliveryPayload,
  DLT_REJECTION,
  isStatusConflict,
  PROVIDER_TIME_ZONE,
  STATUS_PRECEDENCES,
  type StatusClass,
  type StatusPoint,
  type StatusPrecedence,
  supersedes,
  type TemplateProblem,
  type TemplateVariables,
} from "@reportkit/wire";
// The wire payloads are @reportkit/wire's, shared with the sandbox; the zod schemas in schemas.ts are
// checked against them (wire-payloads.test-d.ts).
// The status vocabulary (statuses.ts) and the rule that orders a message's statuses
// (supersedes.ts) are wire's too: every report's `final` and `outcome` come from it.
// The composed-webhook grammar and variable tables are wire's too (composed-types.ts types a
// handler by a template, compile-template.ts and read-composed.ts read requests by it).
export type {
  ChallengeOption,
  ChallengeReply,
  ChallengeRequest,
  ChallengeResponder,
} from "./challenge.js";
export type { TokenOption } from "./check-bearer.js";
export { ComposedTemplateError } from "./compile-template.js";
export type { ComposedCallReport, ComposedDeliveryReport } from "./composed-types.js";
export type { ReportContext } from "./context.js";
export { createReceiver } from "./create-receiver.js";
export { defaultDedupeKey } from "./dedupe-key.js";
export {
  ERROR_STATUS,
  type ErrorCode,
  type ReportError,
  type ReportErrorCode,
  ReportkitError,
} from "./errors.js";
export { type MemoryDedupeOptions, memoryDedupe } from "./memory-dedupe.js";
export { type ParseOptions, type ParseResult, parseReport } from "./parse-report.js";
export type { ReceiverLogger } from "./receiver-log.js";
export {
  type CallReportFor,
  type ContextWith,
  DEFAULT_MAX_BODY_BYTES,
  type DeliveryReportFor,
  type ErrorHandler,
  type Handler,
  type ReceiverOptions,
} from "./receiver-options.js";
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
export type {
  CloseOptions,
  HealthReport,
  Receiver,
  ReceiverRequest,
  ReceiverResponse,
} from "./types.js";
