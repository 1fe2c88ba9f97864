export {
  type CallReport,
  type DeliveryReport,
  type ErrorCode,
  type Report,
  type ReportContext,
  ReportkitError,
} from "@reportkit/core";
export {
  type ExpressHandler,
  type ExpressReceiver,
  type ExpressReceiverOptions,
  type ExpressRequest,
  webhookReceiver,
} from "./webhook-receiver.js";
