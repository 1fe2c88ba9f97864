// The route the plugin registers, in an encapsulated context of its own: body parsers that hand
// core the body unread (core reads it once the request is authenticated, under its own limits),
// an error handler for a Content-Type Fastify itself refuses, and the reply as core made it.
import {
  type AdapterReceiver,
  type BodyStream,
  REPORT_MEDIA_TYPES,
  type ReceiverRequest,
  type ReceiverResponse,
} from "@reportkit/core/adapter";
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";

export interface RouteOptions {
  receiver: Pick<AdapterReceiver, "handle">;
  path: string;
  shutdown: { closing: boolean };
}

/** The encapsulated route: body parsers and error handler of its own. */
export const route: FastifyPluginAsync<RouteOptions> = async (
  fastify,
  { receiver, path, shutdown },
) => {
  // Every content type reaches core unread; core decides what it accepts (415 otherwise). A
  // parser per media type core reads (Fastify finds a named type's parser in its cache), the
  // catch-all for the rest.
  const unread = (
    _request: FastifyRequest,
    payload: BodyStream,
    done: (e: null, b: unknown) => void,
  ) => done(null, payload);
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser([...REPORT_MEDIA_TYPES], unread);
  fastify.addContentTypeParser("*", unread);
  fastify.setErrorHandler(async (error: FastifyError, request, reply) => {
    // A Content-Type Fastify finds malformed, refused before any parser: core decides, as it
    // would anyway. Anything else is the host's (a hook of its own failed, say).
    if (error.code !== "FST_ERR_CTP_INVALID_MEDIA_TYPE") throw error;
    return send(reply, await receiver.handle(describe(request, request.raw)));
  });
  fastify.all(path, async (request, reply) => {
    const response = await receiver.handle(
      describe(request, request.body as BodyStream | undefined),
    );
    if (shutdown.closing) reply.header("connection", "close");
    return send(reply, response);
  });
};

/**
 * The request as core reads it. A stream a preParsing hook put in place of the request's (a
 * decompression, a rewrite) is what its declared Content-Length no longer describes: core then
 * holds only the bytes as they arrive to the limit.
 */
function describe(request: FastifyRequest, body: BodyStream | undefined): ReceiverRequest {
  const replaced =
    body !== undefined && body !== request.raw && request.headers["content-length"] !== undefined;
  const headers = replaced ? { ...request.headers, "content-length": undefined } : request.headers;
  return { method: request.method, url: request.url, headers, body: body ?? null };
}

function send(reply: FastifyReply, response: ReceiverResponse) {
  // Text, so Node writes the head and the body as one chunk (a Buffer goes out as two); the
  // serializer that passes it on as is keeps Fastify from adding "; charset=utf-8" to core's
  // Content-Type, which it does to text it did not serialize itself.
  return reply.code(response.status).headers(response.headers).serializer(asIs).send(response.body);
}

const asIs = (body: string): string => body;
