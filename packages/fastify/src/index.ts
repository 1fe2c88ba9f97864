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
export type { FastifyReportkit } from "./fastify-reportkit.js";
export {
  type FastifyReceiverOptions,
  webhookReceiver,
  webhookReceiver as default,
} from "./webhook-receiver.js";
