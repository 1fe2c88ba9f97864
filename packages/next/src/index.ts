export {
  type CallReport,
  type DeliveryReport,
  type ErrorCode,
  type Report,
  type ReportContext,
  ReportkitError,
} from "@reportkit/core";
export { type NextReceiver, type NextRouteHandler, webhookReceiver } from "./route-handler.js";
