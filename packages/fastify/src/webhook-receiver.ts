import {
  type ComposedTemplate,
  createReceiver,
  type ReceiverBody,
  type ReceiverOptions,
  type ReceiverRequest,
  type ReceiverResponse,
  type RefusalCode,
  withEnvToken,
} from "@reportkit/core";
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";

/**
 * Core's options plus the route's `path`. A composed template is accepted; its report types
 * are the plain ones here, since register() cannot carry a literal template's type along.
 */
export type FastifyReceiverOptions = ReceiverOptions<ComposedTemplate | undefined> & {
  /** The route's path, under the register prefix. Default "/webhooks". */
  path?: string;
};

// Core's default limit, applied here by Fastify while it reads the body.
const DEFAULT_MAX_BODY_BYTES = 65_536;
// Bodies core needs as bytes: multipart (parts may name charsets) or another charset than UTF-8.
const NOT_UTF8 = /^multipart\/|;\s*charset=(?!"?utf-?8(?:"|;|\s|$))/i;

function passBody(_request: unknown, body: string | Buffer, done: (e: null, b: unknown) => void) {
  done(null, body);
}

/**
 * Fastify 5 plugin: the reportkit receiver on one route, in its own encapsulated context, so
 * its catch-all body parser and error handler never touch the host app's other routes.
 *
 * @example
 * await fastify.register(webhookReceiver, { path: "/webhooks", onDelivery(report) {} });
 */
export const webhookReceiver: FastifyPluginAsync<FastifyReceiverOptions> = async (
  fastify,
  options,
) => {
  const { path = "/webhooks", ...receiverOptions } = options;
  const receiver = createReceiver(withEnvToken(receiverOptions, process.env));
  const bodyLimit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  // Every content type reaches core unparsed; core decides what it accepts (415 otherwise).
  // UTF-8 text as a string (Fastify decodes it faster than core can), the rest as bytes.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(NOT_UTF8, { parseAs: "buffer", bodyLimit }, passBody);
  fastify.addContentTypeParser("*", { parseAs: "string", bodyLimit }, passBody);

  fastify.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
      // Refused on the Content-Type alone, body unread: core decides, as it would anyway.
      return send(request, reply, await receiver.handle(describe(request, request.raw)));
    }
    // A body error: Fastify's own, or the stream failing while it read the body (read begun,
    // no body parsed). Anything else is the host's (a hook of its own failed, say): its
    // error handler answers it.
    const refusal: RefusalCode | undefined =
      error.code === "FST_ERR_CTP_BODY_TOO_LARGE"
        ? "payload_too_large"
        : error.code?.startsWith("FST_ERR_CTP_") ||
            (request.body === undefined && request.raw.readableDidRead)
          ? "body_read_failed"
          : undefined;
    if (refusal === undefined) throw error;
    return send(request, reply, await receiver.refuse(refusal, describe(request)));
  });
  fastify.all(path, { bodyLimit }, async (request, reply) =>
    send(request, reply, await receiver.handle(describe(request, request.body as ReceiverBody))),
  );
};

/** The request as core reads it: a literal, since a spread of one costs microseconds here. */
function describe(request: FastifyRequest, body?: ReceiverBody): ReceiverRequest {
  return { method: request.method, url: request.url, headers: request.headers, body };
}

function send(request: FastifyRequest, reply: FastifyReply, response: ReceiverResponse) {
  const { error } = response;
  if (error !== undefined) {
    // The cause is the app's own error (a handler's throw), logged as Fastify logs any.
    const fields = { status: response.status, code: error.code, err: error.cause };
    if (response.status >= 500) request.log.error(fields, `reportkit: ${error.message}`);
    else request.log.warn(fields, `reportkit: ${error.message}`);
  }
  // Bytes, so Fastify sends core's Content-Type as it is (a string would gain "; charset=utf-8").
  return reply.code(response.status).headers(response.headers).send(Buffer.from(response.body));
}

export default webhookReceiver;
