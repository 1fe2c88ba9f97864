export {
  type CallReport,
  type DeliveryReport,
  type ErrorCode,
  type Report,
  type ReportContext,
  ReportkitError,
} from "@reportkit/core";
export { type HonoHandler, type HonoReceiver, webhookReceiver } from "./webhook-receiver.js";
