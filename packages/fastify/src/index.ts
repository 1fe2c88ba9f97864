export {
  type CallReport,
  type DeliveryReport,
  type ErrorCode,
  type Report,
  type ReportContext,
  ReportkitError,
} from "@reportkit/core";
export type { FastifyReportkit } from "./fastify-reportkit.js";
export {
  type FastifyReceiverOptions,
  webhookReceiver,
  webhookReceiver as default,
} from "./webhook-receiver.js";
