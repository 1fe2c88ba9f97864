import Fastify from "fastify";
import { countHandled, path, token, withCredential } from "./common.mjs";
import { bearerCheck, validReport } from "./hand-written.mjs";
import { inlineWork, replyBody } from "./inline-work.mjs";

async function listen(app) {
  await app.listen({ port: 0, host: "127.0.0.1" });
  return app.server.address().port;
}

/** Fastify's own JSON parsing and a 200. */
export function bare() {
  const app = Fastify();
  app.post(path, async () => {
    countHandled();
    return { ok: true };
  });
  return listen(app);
}

/**
 * The same bare route in an encapsulated plugin of its own, as reportkit's route is (it brings
 * its own body parsers). With one, a process draws Node's megamorphic nextTick (dearer for
 * every request, to any route) early more often; the bare route above has no plugin.
 */
export async function barePlugin() {
  const app = Fastify();
  await app.register(async (scope) => {
    scope.post(path, async () => {
      countHandled();
      return { ok: true };
    });
  });
  return listen(app);
}

export function handWritten() {
  const authorized = bearerCheck(token);
  const app = Fastify();
  app.post(path, async (request, reply) => {
    if (!authorized(request.headers.authorization)) return reply.code(401).send({ ok: false });
    if (!validReport(request.body)) return reply.code(400).send({ ok: false });
    countHandled();
    return { ok: true };
  });
  return listen(app);
}

/** reportkit's work written inline in the route (inline-work.mjs): the floor for it. */
export function inline() {
  const app = Fastify();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) =>
    done(null, body),
  );
  app.post(path, (request, reply) => {
    const status = inlineWork(request.body, request.headers.authorization);
    reply
      .code(status)
      .header("content-type", "application/json")
      .serializer((body) => body)
      .send(replyBody(status));
  });
  return listen(app);
}

export async function reportkit(options) {
  const { webhookReceiver } = await import("@reportkit/fastify");
  const app = Fastify();
  await app.register(webhookReceiver, withCredential({ path, ...options }));
  return listen(app);
}

/** One receiver per composed webhook, each at its own path. */
export async function reportkitComposed(webhooks) {
  const { webhookReceiver } = await import("@reportkit/fastify");
  const app = Fastify();
  for (const { path, template, handlers } of webhooks) {
    // One receiver per scope: each decorates its own `fastify.reportkit`.
    await app.register(async (scope) => {
      await scope.register(
        webhookReceiver,
        withCredential({ path, composed: template, ...handlers }),
      );
    });
  }
  return listen(app);
}
