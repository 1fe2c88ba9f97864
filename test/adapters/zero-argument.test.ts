// The usage the project was designed around: webhookReceiver() with no options, the token from
// REPORTKIT_SECRET, typed handlers attached after, on each adapter, over real HTTP.
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { DeliveryReport } from "@reportkit/core";
import { webhookReceiver as expressReceiver } from "@reportkit/express";
import { webhookReceiver as fastifyReceiver } from "@reportkit/fastify";
import { webhookReceiver as honoReceiver } from "@reportkit/hono";
import express from "express";
import Fastify, { type FastifyInstance } from "fastify";
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";

const HEADERS = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
const closers: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function listenExpress(app: express.Express): Promise<string> {
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function listenFastify(app: FastifyInstance): Promise<string> {
  closers.push(() => app.close());
  return app.listen({ port: 0, host: "127.0.0.1" });
}

async function listenHono(app: Hono): Promise<string> {
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise((resolve) => server.once("listening", resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function push(url: string, payload: object = SAMPLE_DLR, headers: object = HEADERS) {
  return fetch(url, { method: "POST", headers: { ...headers }, body: JSON.stringify(payload) });
}

describe("webhookReceiver() with no options, handlers attached after", () => {
  it("Express: app.use(webhookReceiver()) serves /webhooks and passes the rest on", async () => {
    vi.stubEnv("REPORTKIT_SECRET", TOKEN);
    const seen: string[] = [];
    const app = express();
    const receiver = expressReceiver();
    app.use(receiver);
    app.get("/health", (_req, res) => void res.send("up"));
    const origin = await listenExpress(app);
    // Before any handler: not acknowledged, so the provider retries later.
    const early = await push(`${origin}/webhooks`);
    expect(early.status).toBe(503);
    expect(early.headers.get("retry-after")).toMatch(/^\d+$/);
    receiver
      .onDelivery((report) => void seen.push(report.id))
      .onCall((report) => void seen.push(report.status));
    expect((await push(`${origin}/webhooks`)).status).toBe(200);
    expect((await push(`${origin}/webhooks/`, SAMPLE_CALL)).status).toBe(200);
    expect(await (await fetch(`${origin}/health`)).text()).toBe("up");
    expect((await push(`${origin}/elsewhere`)).status).toBe(404);
    expect(seen).toEqual([SAMPLE_DLR.id, SAMPLE_CALL.status]);
  });

  it("Fastify: register(webhookReceiver) with no options, fastify.reportkit to attach", async () => {
    vi.stubEnv("REPORTKIT_SECRET", TOKEN);
    const seen: DeliveryReport[] = [];
    const app = Fastify();
    await app.register(fastifyReceiver);
    app.reportkit.onDelivery((report) => void seen.push(report));
    app.get("/health", async () => "up");
    const origin = await listenFastify(app);
    expect((await push(`${origin}/webhooks`)).status).toBe(200);
    // The catch-all body parsers stay inside the plugin's own scope.
    const other = await fetch(`${origin}/health`);
    expect(await other.text()).toBe("up");
    expect(seen.map((r) => r.id)).toEqual([SAMPLE_DLR.id]);
  });

  it("Hono: webhookReceiver() as a route handler, then .onDelivery(fn)", async () => {
    vi.stubEnv("REPORTKIT_SECRET", TOKEN);
    const seen: string[] = [];
    const app = new Hono();
    app.post(
      "/webhooks",
      honoReceiver().onDelivery((report) => void seen.push(report.id)),
    );
    const origin = await listenHono(app);
    expect((await push(`${origin}/webhooks`)).status).toBe(200);
    expect(seen).toEqual([SAMPLE_DLR.id]);
  });

  it("Hono on Workers: handlers attached before the first request reach the receiver c.env's token builds", async () => {
    vi.stubEnv("REPORTKIT_SECRET", "");
    vi.stubGlobal("navigator", { userAgent: "Cloudflare-Workers" });
    const seen: string[] = [];
    const app = new Hono();
    app.post(
      "/webhooks",
      honoReceiver().onDelivery((report) => void seen.push(report.id)),
    );
    const res = await app.request(
      "/webhooks",
      { method: "POST", headers: HEADERS, body: JSON.stringify(SAMPLE_DLR) },
      { REPORTKIT_SECRET: TOKEN },
    );
    expect(res.status).toBe(200);
    expect(seen).toEqual([SAMPLE_DLR.id]);
  });
});

describe("clear messages instead of a destructuring TypeError", () => {
  it.each([
    ["Express", (o: unknown) => expressReceiver(o as never)],
    ["Hono", (o: unknown) => honoReceiver(o as never)],
  ])(
    "%s: null is refused, undefined is the zero-argument form, no token is named",
    (_name, make) => {
      vi.stubEnv("REPORTKIT_SECRET", TOKEN);
      expect(() => make(null)).toThrow(/takes an options object, or nothing.*got null/);
      expect(() => make(undefined)).not.toThrow();
      vi.stubEnv("REPORTKIT_SECRET", "");
      // Hono may still find the token in c.env at the first request; Express cannot.
      if (_name === "Express")
        expect(() => make(undefined)).toThrow(/no secret given.*REPORTKIT_SECRET/);
    },
  );

  it("Fastify: no token anywhere fails the register with the message", async () => {
    vi.stubEnv("REPORTKIT_SECRET", "");
    const app = Fastify();
    closers.push(() => app.close());
    await expect(app.register(fastifyReceiver)).rejects.toThrow(
      /no secret given.*REPORTKIT_SECRET/,
    );
  });

  it("a REPORTKIT_SECRET that no request could ever match is refused at construction", () => {
    for (const token of [" abc", "abc ", "ab c", "abc\u00e9"]) {
      vi.stubEnv("REPORTKIT_SECRET", token);
      expect(() => expressReceiver()).toThrow(/REPORTKIT_SECRET.*no request could ever match it/);
      expect(() => honoReceiver()).toThrow(/REPORTKIT_SECRET.*no request could ever match it/);
    }
  });

  it("a second handler of a kind is refused, from options or attached", () => {
    vi.stubEnv("REPORTKIT_SECRET", TOKEN);
    const receiver = expressReceiver({ onDelivery() {} });
    expect(() => receiver.onDelivery(() => {})).toThrow(/already has an `onDelivery` handler/);
  });
});

describe("Fastify: the plugin, its scopes and prefixes", () => {
  it("is a fastify-plugin with a name and the supported Fastify range", () => {
    const meta = (fastifyReceiver as unknown as Record<symbol, unknown>)[
      Symbol.for("plugin-meta")
    ] as { name: string; fastify: string };
    expect(meta).toMatchObject({ name: "@reportkit/fastify", fastify: "5.x" });
    expect(
      (fastifyReceiver as unknown as Record<symbol, unknown>)[Symbol.for("skip-override")],
    ).toBe(true);
  });

  it("with a prefix and no path, serves the prefix itself; with both, prefix + path", async () => {
    vi.stubEnv("REPORTKIT_SECRET", TOKEN);
    const app = Fastify();
    closers.push(() => app.close());
    await app.register(async (scope) => {
      await scope.register(fastifyReceiver, { prefix: "/webhooks" });
      scope.reportkit.onDelivery(() => {});
    });
    await app.register(async (scope) => {
      await scope.register(fastifyReceiver, { prefix: "/api", path: "/dlr" });
      scope.reportkit.onDelivery(() => {});
    });
    const status = async (url: string) =>
      (await app.inject({ method: "POST", url, headers: HEADERS, payload: SAMPLE_DLR })).statusCode;
    expect(await status("/webhooks")).toBe(200);
    expect(await status("/webhooks/")).toBe(200);
    expect(await status("/webhooks/webhooks")).toBe(404);
    expect(await status("/api/dlr")).toBe(200);
  });

  it("several receivers: one per scope, each reached as scope.reportkit; two in one scope are refused", async () => {
    vi.stubEnv("REPORTKIT_SECRET", TOKEN);
    const seen: string[] = [];
    const app = Fastify();
    closers.push(() => app.close());
    for (const tenant of ["a", "b"]) {
      await app.register(
        async (scope) => {
          await scope.register(fastifyReceiver);
          scope.reportkit.onDelivery(() => void seen.push(tenant));
        },
        { prefix: `/${tenant}` },
      );
    }
    for (const url of ["/a/webhooks", "/b/webhooks"]) {
      expect(
        (await app.inject({ method: "POST", url, headers: HEADERS, payload: SAMPLE_DLR }))
          .statusCode,
      ).toBe(200);
    }
    expect(seen).toEqual(["a", "b"]);

    // In one scope, a further receiver must bring its handlers: nothing could attach them.
    const twice = Fastify();
    closers.push(() => twice.close());
    await twice.register(fastifyReceiver, { path: "/one" });
    await twice.register(fastifyReceiver, {
      path: "/two",
      onDelivery: () => void seen.push("two"),
    });
    const refused = Fastify();
    closers.push(() => refused.close().catch(() => {}));
    await refused.register(fastifyReceiver, { path: "/one" });
    await expect(refused.register(fastifyReceiver, { path: "/three" })).rejects.toThrow(
      /already has a receiver.*Give them in its options, or register it in a scope of its own/,
    );
    const two = await twice.inject({
      method: "POST",
      url: "/two",
      headers: HEADERS,
      payload: SAMPLE_DLR,
    });
    expect(two.statusCode).toBe(200);
    expect(seen).toEqual(["a", "b", "two"]);
  });
});
