// The route the plugin registers, in an encapsulated context of its own: body parsers that hand
// core the stream, an error handler for what core's reader refused, and the reply as core made it.
import { ReportkitError } from "@reportkit/core";
import {
  type BodyDone,
  type NodeStyleStream,
  REPORT_MEDIA_TYPES,
  type Receiver,
  type ReceiverBody,
  type ReceiverRequest,
  type ReceiverResponse,
  type RefusalCode,
} from "@reportkit/core/adapter";
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";

export interface RouteOptions {
  receiver: Pick<Receiver, "handle" | "respond" | "readStream" | "refuse">;
  path: string;
  shutdown: { closing: boolean };
}

/** The encapsulated route: body parsers and error handler of its own. */
export const route: FastifyPluginAsync<RouteOptions> = async (
  fastify,
  { receiver, path, shutdown },
) => {
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
