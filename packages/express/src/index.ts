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
export type { ExpressRequest } from "./express-request.js";
export {
  type ExpressHandler,
  type ExpressReceiver,
  type ExpressReceiverOptions,
  webhookReceiver,
} from "./webhook-receiver.js";
