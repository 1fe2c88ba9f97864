import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable, Writable } from "node:stream";
import type { ReportkitError } from "@reportkit/core";
import webhookReceiverDefault, { webhookReceiver } from "@reportkit/fastify";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from "fastify";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR, SAMPLE_DLR_TEXT, TOKEN } from "../fixtures/samples.js";

const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_HEADERS = { ...AUTH, "content-type": "application/json" };
const DLR = JSON.stringify(SAMPLE_DLR);

function handlers() {
  return { onDelivery: vi.fn(), onCall: vi.fn() };
}

const apps: FastifyInstance[] = [];
function track(app: FastifyInstance): FastifyInstance {
  apps.push(app);
  return app;
}

afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** A receiver on a listening Fastify app, with its handlers and the errors onError was told. */
async function listening(options: Record<string, unknown> = {}) {
  const h = handlers();
  const errors: ReportkitError[] = [];
  const app = track(Fastify());
  await app.register(webhookReceiver, {
    secret: TOKEN,
    ...h,
    onError: (e) => void errors.push(e),
    ...options,
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = app.server.address() as AddressInfo;
  return { app, h, errors, port };
}

describe("@reportkit/fastify: registration", () => {
  it("is the default export too, on /webhooks unless told otherwise", async () => {
    expect(webhookReceiverDefault).toBe(webhookReceiver);
    const h = handlers();
    const app = track(Fastify());
    await app.register(webhookReceiverDefault, { secret: TOKEN, ...h });
    const res = await app.inject({
      method: "POST",
      url: "/webhooks",
      headers: JSON_HEADERS,
      payload: DLR,
    });
    expect(res.statusCode).toBe(200);
    expect(h.onDelivery).toHaveBeenCalledTimes(1);
  });

  it("the register prefix applies, and core sees the full URL", async () => {
    const h = handlers();
    const app = track(Fastify());
    await app.register(webhookReceiver, { prefix: "/api", path: "/dlr", secret: TOKEN, ...h });
    const res = await app.inject({
      method: "POST",
      url: "/api/dlr?try=1",
      headers: JSON_HEADERS,
      payload: DLR,
    });
    expect(res.statusCode).toBe(200);
    expect(h.onDelivery.mock.calls[0]?.[1]).toMatchObject({ url: "/api/dlr?try=1" });
    expect(
      (await app.inject({ method: "POST", url: "/dlr", headers: JSON_HEADERS, payload: DLR }))
        .statusCode,
    ).toBe(404);
  });

  it("reads REPORTKIT_SECRET when no token is given; with neither, register fails naming both", async () => {
    vi.stubEnv("REPORTKIT_SECRET", TOKEN);
    const app = track(Fastify());
    await app.register(webhookReceiver, handlers());
    expect(
      (await app.inject({ method: "POST", url: "/webhooks", headers: JSON_HEADERS, payload: DLR }))
        .statusCode,
    ).toBe(200);

    vi.stubEnv("REPORTKIT_SECRET", "");
    const bare = track(Fastify());
    await expect(bare.register(webhookReceiver, handlers())).rejects.toThrow(
      /no secret given.*REPORTKIT_SECRET/,
    );
  });
});

describe("@reportkit/fastify: encapsulation", () => {
  async function hostWithReceiver() {
    const h = handlers();
    const app = track(Fastify());
    app.post("/orders", async (request) => ({ received: request.body }));
    app.setErrorHandler<FastifyError>(async (error, _request, reply) =>
      reply.code(error.statusCode ?? 500).send({ host: true, code: error.code }),
    );
    await app.register(webhookReceiver, { secret: TOKEN, ...h });
    app.post("/later", async (request) => ({ received: request.body }));
    return { app, h };
  }

  it("the host's other routes still parse JSON, before and after the plugin", async () => {
    const { app } = await hostWithReceiver();
    for (const url of ["/orders", "/later"]) {
      const res = await app.inject({ method: "POST", url, payload: { n: 1 } });
      expect(res.json()).toEqual({ received: { n: 1 } });
    }
  });

  it("urlencoded stays unsupported on the host's routes (the catch-all parser is the plugin's)", async () => {
    const { app } = await hostWithReceiver();
    const res = await app.inject({
      method: "POST",
      url: "/orders",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "n=1",
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ host: true, code: "FST_ERR_CTP_INVALID_MEDIA_TYPE" });
  });

  it("the host keeps its own body limit (1 MiB) and error handler on its routes", async () => {
    const { app } = await hostWithReceiver();
    const big = { padding: "x".repeat(100_000) };
    expect((await app.inject({ method: "POST", url: "/orders", payload: big })).statusCode).toBe(
      200,
    );
    const broken = await app.inject({
      method: "POST",
      url: "/orders",
      headers: { "content-type": "application/json" },
      payload: "{",
    });
    expect(broken.json()).toMatchObject({ host: true });
  });

  it("the webhook route gets core's replies, not the host's error handler", async () => {
    const { app, h } = await hostWithReceiver();
    const sample = await app.inject({
      method: "POST",
      url: "/webhooks",
      headers: JSON_HEADERS,
      payload: SAMPLE_DLR_TEXT,
    });
    expect(sample.statusCode).toBe(200);
    const tooBig = await app.inject({
      method: "POST",
      url: "/webhooks",
      headers: JSON_HEADERS,
      payload: JSON.stringify({ ...SAMPLE_DLR, padding: "x".repeat(100_000) }),
    });
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json()).toMatchObject({ ok: false, error: { code: "payload_too_large" } });
    expect(h.onDelivery).toHaveBeenCalledTimes(1);
  });

  it("a body over Fastify's limit still gets core's order: method, token and type first", async () => {
    const { app } = await hostWithReceiver();
    const big = JSON.stringify({ ...SAMPLE_DLR, padding: "x".repeat(100_000) });
    const send = (method: "POST" | "PUT", headers: Record<string, string>) =>
      app.inject({ method, url: "/webhooks", headers, payload: big });
    const codes = async (method: "POST" | "PUT", headers: Record<string, string>) => {
      const res = await send(method, headers);
      return [res.statusCode, res.json().error.code];
    };
    expect(await codes("POST", { "content-type": "application/json" })).toEqual([
      401,
      "unauthorized",
    ]);
    expect(await codes("PUT", JSON_HEADERS)).toEqual([405, "method_not_allowed"]);
    expect(await codes("POST", { ...AUTH, "content-type": "application/xml" })).toEqual([
      415,
      "unsupported_media_type",
    ]);
  });

  it.each(["onRequest", "preParsing", "preValidation", "preHandler"] as const)(
    "an error of the host's own %s hook on the webhook route goes to the host's error handler",
    async (hook) => {
      const app = track(Fastify());
      app.addHook(hook, async (request: FastifyRequest) => {
        if (request.headers["x-blocked"] !== undefined) {
          throw Object.assign(new Error("blocked"), { statusCode: 403, code: "HOST_BLOCKED" });
        }
      });
      app.setErrorHandler<FastifyError>(async (error, _request, reply) =>
        reply.code(error.statusCode ?? 500).send({ host: true, code: error.code }),
      );
      await app.register(webhookReceiver, { secret: TOKEN, ...handlers() });
      const res = await app.inject({
        method: "POST",
        url: "/webhooks",
        headers: { ...JSON_HEADERS, "x-blocked": "1" },
        payload: DLR,
      });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ host: true, code: "HOST_BLOCKED" });
    },
  );

  it("a Content-Type Fastify itself finds malformed still gets core's answer", async () => {
    const h = handlers();
    const app = track(Fastify());
    await app.register(webhookReceiver, { secret: TOKEN, ...h });
    const json = await app.inject({
      method: "POST",
      url: "/webhooks",
      headers: { ...AUTH, "content-type": "json" },
      payload: DLR,
    });
    expect(json.statusCode).toBe(415);
    expect(json.json()).toMatchObject({ error: { code: "unsupported_media_type" } });
    // An empty Content-Type is no Content-Type to core: read as JSON.
    const empty = await app.inject({
      method: "POST",
      url: "/webhooks",
      headers: { ...AUTH, "content-type": "" },
      payload: DLR,
    });
    expect(empty.statusCode).toBe(200);
    expect(h.onDelivery).toHaveBeenCalledTimes(1);
  });
});

describe("@reportkit/fastify: logging and failures", () => {
  function loggedApp() {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
        done();
      },
    });
    const app = track(Fastify({ logger: { level: "info", stream } }));
    return { app, lines };
  }

  it("logs through Fastify's logger: each handler failure with its cause and dedupe key as fields, a refusal once a minute, never the token", async () => {
    const { app, lines } = loggedApp();
    await app.register(webhookReceiver, {
      secret: TOKEN,
      dedupe: false,
      onDelivery() {
        throw new Error("db down");
      },
    });
    const wrongToken = { ...JSON_HEADERS, authorization: `Bearer ${TOKEN}x` };
    for (const headers of [JSON_HEADERS, JSON_HEADERS, wrongToken, wrongToken]) {
      await app.inject({ method: "POST", url: "/webhooks", headers, payload: DLR });
    }
    const ours = lines.filter((line) => String(line.msg).startsWith("reportkit:"));
    expect(ours.map((line) => [line.level, String(line.msg).split(/[: ]/, 3)[2]])).toEqual([
      [50, "handler_failed"],
      [50, "handler_failed"],
      [40, "unauthorized"],
    ]);
    // The handler's own error is in the log (the app's log, pino's err field), never in the
    // reply; the code and the report's dedupe key are fields.
    expect(ours[0]).toMatchObject({
      code: "handler_failed",
      status: 500,
      dedupeKey: expect.stringMatching(/^delivery:.+:DELIVRD$/),
      err: { message: "db down" },
    });
    expect(ours[2]).toMatchObject({ code: "unauthorized", status: 401 });
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
  });
  // A client that hangs up mid-body: test/adapters/real-socket.test.ts, on every adapter.
});

describe("@reportkit/fastify: reading the body", () => {
  /**
   * POSTs the bytes in the pieces given, each written on its own; resolves with status and
   * body. With `end: false` the request is left open after the last piece.
   */
  function postInPieces(
    port: number,
    headers: Record<string, string>,
    pieces: Buffer[],
    { end = true } = {},
  ) {
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        { port, host: "127.0.0.1", method: "POST", path: "/webhooks", headers },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            body += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      (async () => {
        for (const piece of pieces) {
          req.write(piece);
          await new Promise((done) => setTimeout(done, 5));
        }
        if (end) req.end();
      })();
    });
  }

  it("a UTF-8 character split across chunks is read whole", async () => {
    const { h, port } = await listening();
    const bytes = Buffer.from(JSON.stringify({ ...SAMPLE_DLR, custom: "café €5" }));
    const at = bytes.indexOf(Buffer.from("€")) + 1; // inside the three bytes of "€"
    const pieces = [bytes.subarray(0, at), bytes.subarray(at, at + 1), bytes.subarray(at + 1)];
    const reply = await postInPieces(port, JSON_HEADERS, pieces);
    expect(reply).toEqual({ status: 200, body: '{"ok":true}' });
    expect(h.onDelivery.mock.calls[0]?.[0]).toMatchObject({ custom: "café €5" });
  });

  it("a body in another charset reaches core as bytes, and core decodes it", async () => {
    const { h, port } = await listening();
    const form = `id=${SAMPLE_DLR.id}&status=DELIVRD&mobile=919876543210&custom=caf\u00e9`;
    const reply = await postInPieces(
      port,
      { ...AUTH, "content-type": "application/x-www-form-urlencoded; charset=iso-8859-1" },
      [Buffer.from(form, "latin1")],
    );
    expect(reply.status).toBe(200);
    expect(h.onDelivery.mock.calls[0]?.[0]).toMatchObject({ custom: "café" });
  });

  it("a stream a preParsing hook put in place, even one of strings, is what is read", async () => {
    const h = handlers();
    const app = track(Fastify());
    await app.register(async (scope) => {
      scope.addHook("preParsing", async (_request, _reply, payload) => {
        let text = "";
        for await (const chunk of payload) text += String(chunk);
        const changed = text.replace("order-1234", "order-5678");
        const half = changed.length >> 1;
        // Strings, in two chunks, as a stream with an encoding set gives them.
        const replaced = Readable.from([changed.slice(0, half), changed.slice(half)], {
          objectMode: false,
        }) as Readable & { receivedEncodedLength?: number };
        replaced.setEncoding("utf8");
        replaced.receivedEncodedLength = Buffer.byteLength(text);
        return replaced;
      });
      await scope.register(webhookReceiver, { secret: TOKEN, ...h });
    });
    const reply = await app.inject({
      method: "POST",
      url: "/webhooks",
      headers: JSON_HEADERS,
      payload: JSON.stringify({ ...SAMPLE_DLR, custom: "order-1234" }),
    });
    expect(reply.statusCode).toBe(200);
    expect(h.onDelivery.mock.calls[0]?.[0]).toMatchObject({ custom: "order-5678" });
  });

  it("a body shorter than its Content-Length is refused, not read as a report", async () => {
    const { app, h, errors } = await listening();
    const reply = await app.inject({
      method: "POST",
      url: "/webhooks",
      headers: { ...JSON_HEADERS, "content-length": String(DLR.length + 10) },
      payload: DLR,
    });
    expect(reply.statusCode).toBe(400);
    expect(reply.json()).toMatchObject({ ok: false, error: { code: "body_read_failed" } });
    expect(errors.map((e) => e.code)).toEqual(["body_read_failed"]);
    expect(h.onDelivery).not.toHaveBeenCalled();
  });

  it("the limit counts bytes as they arrive: refused once over, before the body ends", async () => {
    const { h, port } = await listening({ body: { maxBytes: 1024 } });
    const big = Buffer.from(JSON.stringify({ ...SAMPLE_DLR, custom: "x".repeat(2000) }));
    // No Content-Length, and the request never ends: only counting what arrived can refuse it.
    const reply = await postInPieces(
      port,
      { ...JSON_HEADERS, "transfer-encoding": "chunked" },
      [big.subarray(0, 600), big.subarray(600, 1200)],
      { end: false },
    );
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.body)).toMatchObject({ error: { code: "payload_too_large" } });
    expect(h.onDelivery).not.toHaveBeenCalled();
  });
});
