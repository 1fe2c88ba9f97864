import {
  type CallReport,
  type ComposedTemplate,
  type DeliveryReport,
  type ErrorHandler,
  type Handler,
  type ReceiverOptions,
  ReportkitError,
} from "@reportkit/core";
import {
  adapterReceiver,
  attachable,
  type BodyDone,
  type NodeStyleStream,
  REPORT_MEDIA_TYPES,
  type Receiver,
  type ReceiverBody,
  type ReceiverRequest,
  type ReceiverResponse,
  type RefusalCode,
  takesReports,
} from "@reportkit/core/adapter";
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";

/**
 * Core's options plus the route's `path`. A composed template is accepted; its report types
 * are the plain ones here, since register() cannot carry a literal template's type along.
 */
export type FastifyReceiverOptions = ReceiverOptions<ComposedTemplate | undefined> & {
  /**
   * The route's path, under the register `prefix`. Default "/webhooks"; with a `prefix` and no
   * `path`, the prefix itself (`register(webhookReceiver, { prefix: "/hooks" })` serves /hooks).
   */
  path?: string;
  /** Fastify's own register option, honoured: the route is `prefix` + `path`. */
  prefix?: string;
};

/**
 * `fastify.reportkit`: attach the handlers of the receiver registered on this instance, ask its
 * `health()`. register() cannot carry the dedupe store's type, so a handler that uses what the
 * store adds to `ctx` names it: `fastify.reportkit.onDelivery<InboxScope>((report, ctx) => …)`.
 */
export interface FastifyReportkit {
  onDelivery<S extends object = object>(handler: Handler<DeliveryReport, S>): FastifyReportkit;
  onCall<S extends object = object>(handler: Handler<CallReport, S>): FastifyReportkit;
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

/**
 * Fastify 5 plugin: the reportkit receiver on one route. The instance that registers it gets
 * `fastify.reportkit` to attach handlers (so the plugin is wrapped with fastify-plugin); the
 * route itself lives in an encapsulated child context, so its catch-all body parser and error
 * handler never touch the host app's other routes. The token is REPORTKIT_TOKEN unless given.
 *
 * @example
 * await fastify.register(webhookReceiver);
 * fastify.reportkit.onDelivery((report) => console.log(report.id, report.status));
 */
export const webhookReceiver = fp<FastifyReceiverOptions>(
  async (fastify, options) => {
    const { path, prefix, ...receiverOptions } = options ?? {};
    // One `fastify.reportkit` per scope: a further receiver there can only get its handlers
    // in its options (else nothing could ever reach it, and its reports would wait forever).
    const decorate = !fastify.hasDecorator("reportkit");
    if (!decorate && !takesReports(receiverOptions)) {
      throw new TypeError(
        'reportkit: this Fastify scope already has a receiver (`fastify.reportkit`), so this one\'s handlers could not be attached. Give them in its options, or register it in a scope of its own and reach it there: `fastify.register(async (scope) => { await scope.register(webhookReceiver); scope.reportkit.onDelivery(fn); }, { prefix: "/other" })`.',
      );
    }
    // Fastify's logger, not core's console default: refusals once a minute, failures each.
    const { receiver } = adapterReceiver(
      { logger: fastify.log, ...receiverOptions },
      { env: process.env },
    );
    if (decorate) {
      fastify.decorate("reportkit", attachable({}, receiver) as FastifyReportkit);
    }
    // On fastify.close(), before the server stops listening (which waits for every open
    // connection): wait for the reports in flight, their replies closing their connections (a
    // kept-alive one would hold the process up to keepAliveTimeout), then close the stores.
    // Fastify itself answers 503 to requests that arrive meanwhile.
    const shutdown = { closing: false };
    fastify.addHook("preClose", async () => {
      shutdown.closing = true;
      await receiver.close();
    });
    await fastify.register(route, {
      receiver,
      shutdown,
      path: path ?? (prefix === undefined ? "/webhooks" : "/"),
      ...(prefix === undefined ? {} : { prefix }),
    });
  },
  { name: "@reportkit/fastify", fastify: "5.x" },
);

interface RouteOptions {
  receiver: Pick<Receiver, "handle" | "respond" | "readStream" | "refuse">;
  path: string;
  shutdown: { closing: boolean };
}

/** The encapsulated route: body parsers and error handler of its own. */
const route: FastifyPluginAsync<RouteOptions> = async (fastify, { receiver, path, shutdown }) => {
  // Every content type reaches core unparsed; core decides what it accepts (415 otherwise).
  fastify.removeAllContentTypeParsers();
  // A parser per media type core reads: Fastify finds a named type's parser in its cache, where
  // a catch-all alone is looked up anew on every request (about 3 µs: the Content-Type parsed
  // each time). The catch-all takes the rest, for core to answer (415 for one it cannot read).
  // Core reads the stream (or a preParsing hook's) with the limit; Fastify's `parseAs` would
  // copy every body into a new Buffer first, 5–8% of a report's CPU.
  const readBody = (request: FastifyRequest, payload: NodeStyleStream, done: BodyDone) =>
    receiver.readStream(payload, request.headers, done);
  fastify.addContentTypeParser([...REPORT_MEDIA_TYPES], readBody);
  fastify.addContentTypeParser("*", readBody);

  fastify.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
      // Refused on the Content-Type alone, body unread: core decides, as it would anyway.
      return send(reply, await receiver.handle(describe(request, request.raw)));
    }
    // A body core's reader refused (too large, or the stream failed or fell short). Anything
    // else is the host's (a hook of its own failed, say): its error handler answers it.
    if (!(error instanceof ReportkitError)) throw error;
    return send(reply, await receiver.refuse(error.code as RefusalCode, describe(request)));
  });
  // Not an async handler: with the body in hand, the memory store and a synchronous handler,
  // core's reply is ready at once and is sent without a promise or a microtask.
  fastify.all(path, (request, reply) => {
    const response = receiver.respond(describe(request, request.body as ReceiverBody));
    if (response instanceof Promise) {
      return response.then((ready) => {
        if (shutdown.closing) reply.header("connection", "close");
        return send(reply, ready);
      });
    }
    send(reply, response);
    return undefined;
  });
};

/** The request as core reads it: a literal, since a spread of one costs microseconds here. */
function describe(request: FastifyRequest, body?: ReceiverBody): ReceiverRequest {
  return { method: request.method, url: request.url, headers: request.headers, body };
}

function send(reply: FastifyReply, response: ReceiverResponse) {
  // Text, so Node writes the head and the body as one chunk (a Buffer goes out as two); the
  // serializer that passes it on as is keeps Fastify from adding "; charset=utf-8" to core's
  // Content-Type, which it does to text it did not serialize itself.
  return reply.code(response.status).headers(response.headers).serializer(asIs).send(response.body);
}

const asIs = (body: string): string => body;

export default webhookReceiver;
