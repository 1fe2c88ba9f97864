import {
  type ComposedTemplate,
  createReceiver,
  type ReceiverOptions,
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
  // Errors of the body stream, told apart from errors of the host's own hooks.
  const bodyErrors = new WeakSet<object>();

  // Every content type reaches core as bytes; core decides what it accepts (415 otherwise).
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser("*", { parseAs: "buffer", bodyLimit }, (_request, body, done) => {
    done(null, body);
  });
  fastify.addHook("preParsing", async (_request, _reply, payload) => {
    payload.once("error", (error: unknown) => {
      if (typeof error === "object" && error !== null) bodyErrors.add(error);
    });
    return payload;
  });
  fastify.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
      // Refused on the Content-Type alone, body unread: core decides, as it would anyway.
      return send(
        request,
        reply,
        await receiver.handle({ ...describe(request), body: request.raw }),
      );
    }
    const refusal: RefusalCode | undefined =
      error.code === "FST_ERR_CTP_BODY_TOO_LARGE"
        ? "payload_too_large"
        : error.code?.startsWith("FST_ERR_CTP_") || bodyErrors.has(error)
          ? "body_read_failed"
          : undefined;
    // Not a body error (a host hook failed, say): the host's error handler answers it.
    if (refusal === undefined) throw error;
    return send(request, reply, await receiver.refuse(refusal, describe(request)));
  });
  fastify.all(path, { bodyLimit }, async (request, reply) =>
    send(
      request,
      reply,
      await receiver.handle({ ...describe(request), body: request.body as Buffer | undefined }),
    ),
  );
};

function describe(request: FastifyRequest) {
  return { method: request.method, url: request.url, headers: request.headers };
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
