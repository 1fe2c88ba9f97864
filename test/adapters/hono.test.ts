import { webhookReceiver } from "@reportkit/hono";
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR, SAMPLE_DLR_TEXT, TOKEN } from "../fixtures/samples.js";

const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_HEADERS = { ...AUTH, "content-type": "application/json" };
const DLR = JSON.stringify(SAMPLE_DLR);

function handlers() {
  return { onDelivery: vi.fn(), onCall: vi.fn() };
}

interface Requestable {
  request(url: string, init?: RequestInit, env?: object): Response | Promise<Response>;
}

function push(app: Requestable, init: RequestInit = {}, env?: object) {
  return app.request(
    "/webhooks",
    { method: "POST", headers: JSON_HEADERS, body: DLR, ...init },
    env,
  );
}

/** The report's fields as a form sends them: every value a string. */
function stringsOf(report: object): Record<string, string> {
  return Object.fromEntries(Object.entries(report).map(([k, v]) => [k, String(v)]));
}

function formOf(report: object): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(stringsOf(report))) form.append(key, value);
  return form;
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

/** Cloudflare Workers, as the adapter recognises it: its secrets arrive in each request's c.env. */
function onWorkers(): void {
  vi.stubGlobal("navigator", { userAgent: "Cloudflare-Workers" });
}

describe("@reportkit/hono: the token", () => {
  it("given as an option", async () => {
    const app = new Hono();
    app.post("/webhooks", webhookReceiver({ secret: TOKEN, ...handlers() }));
    expect((await push(app)).status).toBe(200);
  });

  it("from REPORTKIT_SECRET in process.env", async () => {
    vi.stubEnv("REPORTKIT_SECRET", TOKEN);
    const app = new Hono();
    app.post("/webhooks", webhookReceiver(handlers()));
    expect((await push(app)).status).toBe(200);
  });

  it("from REPORTKIT_SECRET in c.env (a Workers binding), per environment", async () => {
    vi.stubEnv("REPORTKIT_SECRET", "");
    onWorkers();
    const h = handlers();
    const app = new Hono<{ Bindings: { REPORTKIT_SECRET: string } }>();
    app.post("/webhooks", webhookReceiver(h));
    expect((await push(app, {}, { REPORTKIT_SECRET: TOKEN })).status).toBe(200);
    expect((await push(app, {}, { REPORTKIT_SECRET: "another-token" })).status).toBe(401);
    expect(h.onDelivery).toHaveBeenCalledTimes(1);
  });

  it("from c.env: close() stops the receiver of every token, and health() says so", async () => {
    vi.stubEnv("REPORTKIT_SECRET", "");
    onWorkers();
    const h = handlers();
    const app = new Hono<{ Bindings: { REPORTKIT_SECRET: string } }>();
    const receiver = webhookReceiver({ ...h, logger: false });
    app.post("/webhooks", receiver);
    // A token's receiver is built at its first request: this one exists before close().
    expect((await push(app, {}, { REPORTKIT_SECRET: TOKEN })).status).toBe(200);
    await receiver.close();
    for (const env of [{ REPORTKIT_SECRET: TOKEN }, { REPORTKIT_SECRET: "another-token" }]) {
      const res = await push(app, {}, env);
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("30");
      expect(await res.json()).toMatchObject({ ok: false, error: { code: "shutting_down" } });
    }
    expect(h.onDelivery).toHaveBeenCalledTimes(1);
    expect(await receiver.health()).toMatchObject({
      ok: false,
      checks: { receiver: { ok: false, message: "shutting down" } },
    });
  });

  it("with neither, outside Workers: construction throws, naming REPORTKIT_SECRET, as Express and Fastify do", () => {
    vi.stubEnv("REPORTKIT_SECRET", "");
    expect(() => webhookReceiver(handlers())).toThrow(/no secret given.*REPORTKIT_SECRET/);
  });

  it("with neither, on Workers: reportkit's JSON 500 naming REPORTKIT_SECRET in the log, not Hono's error page", async () => {
    vi.stubEnv("REPORTKIT_SECRET", "");
    onWorkers();
    const errors: string[] = [];
    const logger = { warn() {}, error: (line: string) => void errors.push(line) };
    let honoError: unknown;
    const app = new Hono();
    app.onError((error, c) => {
      honoError = error;
      return c.text("failed", 500);
    });
    app.post("/webhooks", webhookReceiver({ ...handlers(), logger }));
    const res = await push(app, {}, {});
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ ok: false, error: { code: "secret_check_failed" } });
    expect(honoError).toBeUndefined();
    expect(errors.join("\n")).toMatch(/REPORTKIT_SECRET/);
  });

  it("every other option is checked at construction, even before a token is known", () => {
    vi.stubEnv("REPORTKIT_SECRET", "");
    onWorkers();
    expect(() => webhookReceiver({ dedupe: { store: {} } as never })).toThrow(
      /`dedupe.store` must be/,
    );
    expect(() => webhookReceiver({ ...handlers(), body: { maxBytes: -1 } })).toThrow(
      /`body.maxBytes` must be/,
    );
  });
});

describe("@reportkit/hono: mounting and bodies", () => {
  it("app.on([...methods], path, handler) lets core answer other methods (405 with Allow)", async () => {
    const app = new Hono();
    app.on(["GET", "POST", "PUT"], "/webhooks", webhookReceiver({ secret: TOKEN, ...handlers() }));
    const res = await app.request("/webhooks?id=1", { headers: AUTH });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });

  it("a body a middleware already read through c.req comes from Hono's cache", async () => {
    const h = handlers();
    const app = new Hono();
    app.use("/webhooks", async (c, next) => {
      await c.req.text();
      await next();
    });
    app.post("/webhooks", webhookReceiver({ secret: TOKEN, ...h }));
    expect((await push(app, { body: SAMPLE_DLR_TEXT })).status).toBe(200);
    expect(h.onDelivery.mock.calls[0]?.[0]).toMatchObject({ id: SAMPLE_DLR.id });
  });

  it("a body parsed by c.req.json() first is still the report", async () => {
    const h = handlers();
    const app = new Hono();
    app.use("/webhooks", async (c, next) => {
      await c.req.json();
      await next();
    });
    app.post("/webhooks", webhookReceiver({ secret: TOKEN, ...h }));
    expect((await push(app)).status).toBe(200);
    expect(h.onDelivery).toHaveBeenCalledTimes(1);
  });

  it.each([
    ["multipart/form-data", () => formOf(SAMPLE_DLR)],
    ["application/x-www-form-urlencoded", () => new URLSearchParams(stringsOf(SAMPLE_DLR))],
  ])("a %s body read by c.req.formData() first is still the report", async (_, body) => {
    const h = handlers();
    const app = new Hono();
    app.use("/webhooks", async (c, next) => {
      await c.req.formData();
      await next();
    });
    app.post("/webhooks", webhookReceiver({ secret: TOKEN, ...h }));
    const res = await app.request("/webhooks", { method: "POST", headers: AUTH, body: body() });
    expect(await res.json()).toEqual({ ok: true });
    expect(h.onDelivery.mock.calls[0]?.[0]).toMatchObject({
      id: SAMPLE_DLR.id,
      units: SAMPLE_DLR.units,
      raw: stringsOf(SAMPLE_DLR),
    });
  });

  it("a body consumed straight from c.req.raw: 400, no hang", async () => {
    const h = handlers();
    const app = new Hono();
    app.use("/webhooks", async (c, next) => {
      await c.req.raw.arrayBuffer();
      await next();
    });
    app.post("/webhooks", webhookReceiver({ secret: TOKEN, ...h }));
    const res = await push(app);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "invalid_json" } });
    expect(h.onDelivery).not.toHaveBeenCalled();
  });

  it("keeps headers earlier middleware set on the reply", async () => {
    const app = new Hono();
    app.use("*", async (c, next) => {
      c.header("x-request-id", "abc");
      await next();
    });
    app.post("/webhooks", webhookReceiver({ secret: TOKEN, ...handlers() }));
    const res = await push(app);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("abc");
    expect(res.headers.get("content-type")).toBe("application/json");
  });
});

describe("@reportkit/hono on @hono/node-server: the headers", () => {
  /** Serves the app on a free port for the time of `use`, which gets its /webhooks URL. */
  async function served(app: Hono, use: (url: string) => Promise<void>): Promise<void> {
    const { serve } = await import("@hono/node-server");
    let server: { close(callback: () => void): void } | undefined;
    const port = await new Promise<number>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) =>
        resolve(info.port),
      );
    });
    try {
      await use(`http://127.0.0.1:${port}/webhooks`);
    } finally {
      await new Promise<void>((done) => server?.close(() => done()));
    }
  }

  const post = (url: string, headers: Record<string, string>) =>
    fetch(url, { method: "POST", headers, body: DLR });

  it("come from the Node request, as sent: token, content type, and ctx.headers without the token", async () => {
    const seen: Headers[] = [];
    const app = new Hono();
    app.post(
      "/webhooks",
      webhookReceiver({ secret: TOKEN }).onDelivery((_report, ctx) => {
        seen.push(ctx.headers);
      }),
    );
    await served(app, async (url) => {
      const sent = {
        AUTHORIZATION: `Bearer ${TOKEN}`,
        "Content-Type": "text/plain",
        "X-Trace": "t1",
      };
      expect((await post(url, sent)).status).toBe(200);
      expect((await post(url, { authorization: "Bearer nope" })).status).toBe(401);
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.get("x-trace")).toBe("t1");
    expect(seen[0]?.has("authorization")).toBe(false);
  });

  it("of a Request a middleware built anew are read from that Request, not from the wire", async () => {
    const h = handlers();
    const app = new Hono();
    // The wire carries a wrong token; the middleware's Request carries the right one.
    app.use("/webhooks", async (c, next) => {
      const headers = new Headers(c.req.raw.headers);
      headers.set("authorization", `Bearer ${TOKEN}`);
      c.req.raw = new Request(c.req.raw.url, { method: "POST", headers, body: DLR });
      await next();
    });
    app.post("/webhooks", webhookReceiver({ secret: TOKEN, ...h }));
    await served(app, async (url) => {
      expect((await post(url, { authorization: "Bearer wrong-token" })).status).toBe(200);
    });
    expect(h.onDelivery).toHaveBeenCalledOnce();
  });
});
