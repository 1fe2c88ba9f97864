export {
  type CallReport,
  type DeliveryReport,
  type ErrorCode,
  type Report,
  type ReportContext,
  ReportkitError,
} from "@reportkit/core";
export {
  type FastifyReceiverOptions,
  type FastifyReportkit,
  webhookReceiver,
  webhookReceiver as default,
} from "./webhook-receiver.js";
