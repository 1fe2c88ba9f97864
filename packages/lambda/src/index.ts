export {
  type CallReport,
  type DeliveryReport,
  type ErrorCode,
  type EventReport,
  type Report,
  type ReportContext,
  ReportkitError,
  RetryLater,
  type UnsubscribeReport,
} from "@reportkit/core";
export type {
  LambdaEventV1,
  LambdaEventV2,
  LambdaHttpEvent,
  LambdaHttpResult,
} from "./lambda-events.js";
export {
  type LambdaHandler,
  type LambdaReceiver,
  MalformedEventError,
  toReceiverRequest,
  toResult,
  webhookReceiver,
} from "./webhook-receiver.js";
