export {
  type CallReport,
  type DeliveryReport,
  type ErrorCode,
  type Report,
  type ReportContext,
  ReportkitError,
} from "@reportkit/core";
export { type HonoHandler, webhookReceiver } from "./webhook-receiver.js";
