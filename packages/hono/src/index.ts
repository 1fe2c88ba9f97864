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
export { type HonoHandler, type HonoReceiver, webhookReceiver } from "./webhook-receiver.js";
