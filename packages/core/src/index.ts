// @reportkit/core: the user API. Adapter, store and queue authors import from
// "@reportkit/core/adapter" (adapter.ts).

export {
  CALL_VARIABLES,
  type CallPayload,
  type ComposedTemplate,
  DELIVERY_VARIABLES,
  type DeliveryPayload,
  PROVIDER_TIME_ZONE,
  type TemplateProblem,
  type TemplateVariables,
} from "@reportkit/wire";
export { ComposedTemplateError } from "./composed/compile-template.js";
export type { ComposedCallReport, ComposedDeliveryReport } from "./composed/composed-types.js";
export type { ReportContext } from "./process/handler-context.js";
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
// The wire payloads are @reportkit/wire's, shared with the sandbox; the zod schemas in schemas.ts are
// checked against them (wire-payloads.test-d.ts).
// The composed-webhook grammar and variable tables are wire's too (composed-types.ts types a
// handler by a template, compile-template.ts and read-composed.ts read requests by it).
export type {
  ChallengeOption,
  ChallengeReply,
  ChallengeRequest,
  ChallengeResponder,
} from "./request/challenge-option.js";
export type { SecretOption, TokenOption } from "./request/check-bearer.js";
export { type MemoryDedupeOptions, memoryDedupe } from "./store-kit/memory-dedupe.js";
