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
// The wire payloads are @reportkit/wire's, shared with the sandbox; the zod schemas in
// report/schemas.ts are checked against them (report/schemas.test-d.ts). The status vocabulary
// (statuses.ts) and the rule that orders a message's statuses (supersedes.ts) are wire's too:
// every report's `final` and `outcome` come from it. The composed-webhook grammar and variable
// tables are wire's too (composed/ types a handler by a template and reads requests by it).
export { ComposedTemplateError } from "./composed/compile-template.js";
export type { ComposedCallReport, ComposedDeliveryReport } from "./composed/composed-types.js";
export type { ReportContext } from "./process/handler-context.js";
export { isRetryLater, RetryLater, type RetryLaterOptions } from "./process/retry-later.js";
export { createReceiver } from "./receiver/create-receiver.js";
export type {
  CallReportFor,
  ContextWith,
  DeliveryReportFor,
  ErrorHandler,
  Handler,
  ReceiverOptions,
} from "./receiver/receiver-options.js";
export type {
  CloseOptions,
  HealthReport,
  Receiver,
  ReceiverRequest,
  ReceiverResponse,
} from "./receiver/types.js";
export { DEFAULT_MAX_BODY_BYTES } from "./receiver/validate-options.js";
export {
  ERROR_STATUS,
  type ErrorCode,
  type ReportError,
  type ReportErrorCode,
  ReportkitError,
} from "./reply/errors.js";
export type { ReceiverLogger } from "./reply/receiver-log.js";
export { defaultDedupeKey } from "./report/dedupe-key.js";
export { type ParseOptions, type ParseResult, parseReport } from "./report/parse-report.js";
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
} from "./report/schemas.js";
export type {
  ChallengeOption,
  ChallengeReply,
  ChallengeRequest,
  ChallengeResponder,
} from "./request/challenge-option.js";
export type { SecretOption, TokenOption } from "./request/check-bearer.js";
export { type MemoryDedupeOptions, memoryDedupe } from "./store-kit/memory-dedupe.js";
