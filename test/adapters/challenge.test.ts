// The webhook's verification handshake on the adapters, with the verification token read from
// REPORTKIT_VERIFICATION_TOKEN and the secret from REPORTKIT_SECRET as users set them: the
// provider's request (help/verify-webhook.md) sent byte for byte over real HTTP (Express,
// Fastify, Hono on node-server) and as each Lambda event. The conformance table sends it to
// every other target.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { webhookReceiver as expressReceiver } from "@reportkit/express";
import { webhookReceiver as fastifyReceiver } from "@reportkit/fastify";
import { webhookReceiver as honoReceiver } from "@reportkit/hono";
import { webhookReceiver as lambdaReceiver } from "@reportkit/lambda";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR_TEXT, TOKEN, VERIFICATION_SAMPLE as V } from "../fixtures/samples.js";
import { functionUrlEvent, httpApiEvent, restApiEvent } from "./lambda-events.js";

interface Running {
  origin: string;
  delivered: string[];
  close(): Promise<void>;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const close of closers.splice(0)) await close();
});

function listening(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.once("listening", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

function closing(server: Server): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

/** Each adapter as its quick start mounts it, the credentials from the environment. */
const adapters: Record<string, () => Promise<Running>> = {
  async express() {
    const delivered: string[] = [];
    const app = express();
    app.use(
      expressReceiver({ logger: false }).onDelivery((r) => {
        delivered.push(r.id);
      }),
    );
    const server = app.listen(0, "127.0.0.1");
    return { origin: await listening(server), delivered, close: closing(server) };
  },
  async fastify() {
    const delivered: string[] = [];
    const app = Fastify();
    await app.register(fastifyReceiver, { logger: false });
    app.reportkit.onDelivery((r) => {
      delivered.push(r.id);
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = app.server.address() as AddressInfo;
    return { origin: `http://127.0.0.1:${port}`, delivered, close: () => app.close() };
  },
  async hono() {
    const delivered: string[] = [];
    const app = new Hono();
    app.post(
      "/webhooks",
      honoReceiver({ logger: false }).onDelivery((r) => {
        delivered.push(r.id);
      }),
    );
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server;
    return { origin: await listening(server), delivered, close: closing(server) };
  },
};

async function start(name: string, verificationToken: string): Promise<Running> {
  vi.stubEnv("REPORTKIT_SECRET", V.secret);
  vi.stubEnv("REPORTKIT_VERIFICATION_TOKEN", verificationToken);
  const running = await (adapters[name] as () => Promise<Running>)();
  closers.push(running.close);
  return running;
}

/** The provider's verification request, byte for byte as its page shows it. */
function verify(origin: string, body: string = V.body): Promise<Response> {
  return fetch(`${origin}${V.url}`, {
    method: "POST",
    headers: { authorization: `Bearer ${V.secret}`, "content-type": "application/json" },
    body,
  });
}

describe.each(Object.keys(adapters))("the verification handshake on %s", (name) => {
  it("answers the provider's request, trailing comma and all, with 200 {challenge}; then takes reports", async () => {
    const { origin, delivered } = await start(name, V.queryKey);
    const answer = await verify(origin);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(await answer.json()).toEqual({ challenge: V.challenge });
    const valid = await verify(
      origin,
      JSON.stringify({ validation_key: V.bodyKey, challenge: V.challenge }),
    );
    expect(await valid.json()).toEqual({ challenge: V.challenge });
    expect(delivered).toEqual([]);
    const report = await fetch(`${origin}/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${V.secret}`, "content-type": "application/json" },
      body: SAMPLE_DLR_TEXT,
    });
    expect(report.status).toBe(200);
    expect(delivered).toHaveLength(1);
  });

  it("a wrong key: 401 with WWW-Authenticate, the challenge not echoed", async () => {
    const { origin } = await start(name, "another-key");
    const answer = await verify(origin);
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toBe(
      'Bearer realm="reportkit", error="invalid_token"',
    );
    expect(await answer.text()).not.toContain(V.challenge);
  });
});

describe.each([
  ["API Gateway HTTP API (payload 2.0)", httpApiEvent],
  ["API Gateway REST API (payload 1.0)", restApiEvent],
  ["Lambda function URL", functionUrlEvent],
] as const)("the verification handshake on @reportkit/lambda: %s", (_name, eventOf) => {
  const event = (body: string, query: Record<string, string[]> = { token: [V.queryKey] }) =>
    eventOf({
      path: "/webhooks",
      query,
      headers: { Authorization: `Bearer ${V.secret}`, "Content-Type": "application/json" },
      body,
    });

  it("answers the provider's request byte for byte, and as valid JSON, with 200 {challenge}", async () => {
    const onDelivery = vi.fn();
    const handler = lambdaReceiver({
      secret: TOKEN,
      verification: { token: V.queryKey },
      onDelivery,
    });
    for (const body of [V.body, JSON.stringify({ validation_key: V.queryKey, challenge: "j" })]) {
      const result = await handler(event(body));
      expect(result.statusCode).toBe(200);
      expect(result.headers["content-type"]).toBe("application/json");
      expect(JSON.parse(result.body).challenge).toBe(body === V.body ? V.challenge : "j");
    }
    expect(onDelivery).not.toHaveBeenCalled();
  });

  it("a wrong key: 401, the challenge not echoed", async () => {
    const handler = lambdaReceiver({ secret: TOKEN, verification: { token: "another-key" } });
    const result = await handler(event(V.body));
    expect(result.statusCode).toBe(401);
    expect(result.headers["www-authenticate"]).toMatch(/^Bearer realm="reportkit"/);
    expect(result.body).not.toContain(V.challenge);
  });
});
