// @reportkit/core: the user API (adapter, store and queue authors: "@reportkit/core/adapter"),
// the provider's wire facts from @reportkit/wire first.
export {
  CALL_OUTCOMES,
  CALL_STATUS_TABLE,
  CALL_VARIABLES,
  type CallOutcome,
  type CallPayload,
  type CallStatusClass,
  type ComposedTemplate,
  classifyCallStatus,
  classifyDeliveryStatus,
  DELIVERY_OUTCOMES,
  DELIVERY_REASONS,
  DELIVERY_STATUS_TABLE,
  DELIVERY_VARIABLES,
  type DeliveryOutcome,
  type DeliveryPayload,
  type DeliveryReason,
  type DeliveryStatusClass,
  DLT_REJECTION,
  isStatusConflict,
  PROVIDER_TIME_ZONE,
  REPORT_KINDS,
  type ReportKind,
  STATUS_PRECEDENCES,
  type StatusClass,
  type StatusCode,
  type StatusPoint,
  type StatusPrecedence,
  supersedes,
  type TemplateProblem,
  type TemplateVariables,
  type UnsubscribePayload,
} from "@reportkit/wire";
export type {
  CloseOptions,
  HealthReport,
  ReceiverRequest,
  ReceiverResponse,
} from "./base/types.js";
export { ComposedTemplateError } from "./composed/compile-template.js";
export type { ComposedCallReport, ComposedDeliveryReport } from "./composed/composed-types.js";
export type { ReceiverLogger } from "./process/receiver-log.js";
export { isRetryLater, RetryLater, type RetryLaterOptions } from "./process/retry-later.js";
export type { ReportContext } from "./process/run-handler.js";
export { DEFAULT_MAX_BODY_BYTES } from "./receiver/check-options.js";
export { createReceiver } from "./receiver/create-receiver.js";
export type {
  BodyOptions,
  CallReportFor,
  ContextWith,
  DedupeOptions,
  DeliveryReportFor,
  ErrorHandler,
  Handler,
  Receiver,
  ReceiverOptions,
  ReportFor,
  SecretInHeader,
  VerificationOptions,
} from "./receiver/options.js";
export {
  ERROR_STATUS,
  type ErrorCode,
  type ReportError,
  type ReportErrorCode,
  ReportkitError,
} from "./reply/errors.js";
export { calleeHash, defaultDedupeKey } from "./report/dedupe-key.js";
export { type ParseOptions, type ParseResult, parseReport } from "./report/parse-report.js";
export { reportFromJson } from "./report/report-json.js";
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
  type EventReport,
  EventReportSchema,
  type Report,
  type ReportWarning,
  ReportWarningSchema,
  UnsubscribePayloadSchema,
  type UnsubscribeReport,
  UnsubscribeReportSchema,
} from "./report/schemas.js";
export type {
  ChallengeReply,
  ChallengeRequest,
  ChallengeResponder,
  SecretOption,
} from "./request/authenticate.js";
export { type MemoryDedupeOptions, memoryDedupe } from "./store-kit/memory-dedupe.js";
