// `fastify.reportkit`: what the instance that registers the plugin gets, and its type on
// FastifyInstance.
import type {
  CallReport,
  DeliveryReport,
  ErrorHandler,
  EventReport,
  Handler,
  Receiver,
  UnsubscribeReport,
} from "@reportkit/core";

/**
 * `fastify.reportkit`: attach the handlers of the receiver registered on this instance, ask its
 * `health()`. register() cannot carry the dedupe store's type, so a handler that uses what the
 * store adds to `ctx` names it: `fastify.reportkit.onDelivery<InboxScope>((report, ctx) => …)`.
 */
export interface FastifyReportkit {
  onDelivery<S extends object = object>(handler: Handler<DeliveryReport, S>): FastifyReportkit;
  onCall<S extends object = object>(handler: Handler<CallReport, S>): FastifyReportkit;
  onUnsubscribe<S extends object = object>(
    handler: Handler<UnsubscribeReport, S>,
  ): FastifyReportkit;
  onEvent<S extends object = object>(handler: Handler<EventReport, S>): FastifyReportkit;
  onError(handler: ErrorHandler): FastifyReportkit;
  health: Receiver["health"];
  close: Receiver["close"];
}

declare module "fastify" {
  interface FastifyInstance {
    /** The reportkit receiver registered on this instance: `.onDelivery(fn)`, `.onCall(fn)`, `.onError(fn)`. */
    reportkit: FastifyReportkit;
  }
}
