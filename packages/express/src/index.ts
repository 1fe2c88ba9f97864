export {
  type CallReport,
  type DeliveryReport,
  type ErrorCode,
  type Report,
  type ReportContext,
  ReportkitError,
} from "@reportkit/core";
export type { ExpressRequest } from "./express-request.js";
export {
  type ExpressHandler,
  type ExpressReceiver,
  type ExpressReceiverOptions,
  webhookReceiver,
} from "./webhook-receiver.js";
