// The webhook's verification challenge on every adapter, over real HTTP: a GET to the
// receiver's path with ?challenge=…&token=… is answered by core, before any report is read.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { ComposedTemplate, ReceiverOptions } from "@reportkit/core";
import { webhookReceiver as expressReceiver } from "@reportkit/express";
import { webhookReceiver as fastifyReceiver } from "@reportkit/fastify";
import { webhookReceiver as honoReceiver } from "@reportkit/hono";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { SAMPLE_DLR_TEXT, TOKEN } from "../fixtures/samples.js";

type Options = Pick<ReceiverOptions<ComposedTemplate | undefined>, "challenge" | "composed">;
interface Running {
  origin: string;
  delivered: string[];
  close(): Promise<void>;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
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

const adapters: Record<string, (options: Options) => Promise<Running>> = {
  async express(options) {
    const delivered: string[] = [];
    const app = express();
    app.get("/other", (_req, res) => {
      res.send("other route");
    });
    app.use(
      expressReceiver({
        token: TOKEN,
        logger: false,
        ...options,
        onDelivery: (r: { id: string }) => {
          delivered.push(r.id);
        },
      } as never),
    );
    const server = app.listen(0, "127.0.0.1");
    const origin = await listening(server);
    return { origin, delivered, close: closing(server) };
  },
  async fastify(options) {
    const delivered: string[] = [];
    const app = Fastify();
    await app.register(fastifyReceiver, {
      token: TOKEN,
      logger: false,
      ...options,
      onDelivery: (r: { id: string }) => {
        delivered.push(r.id);
      },
    } as never);
    await app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = app.server.address() as AddressInfo;
    return { origin: `http://127.0.0.1:${port}`, delivered, close: () => app.close() };
  },
  async hono(options) {
    const delivered: string[] = [];
    const app = new Hono();
    // app.all: the challenge is a GET, the reports POSTs (as the README's quick start mounts it).
    app.all(
      "/webhooks",
      honoReceiver({
        token: TOKEN,
        logger: false,
        ...options,
        onDelivery: (r: { id: string }) => {
          delivered.push(r.id);
        },
      } as never),
    );
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server;
    const origin = await listening(server);
    return { origin, delivered, close: closing(server) };
  },
};

async function start(name: string, options: Options = {}): Promise<Running> {
  const running = await (adapters[name] as (o: Options) => Promise<Running>)(options);
  closers.push(running.close);
  return running;
}

function report(origin: string, path = "/webhooks") {
  return fetch(`${origin}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: SAMPLE_DLR_TEXT,
  });
}

describe.each(Object.keys(adapters))("verification challenge on %s", (name) => {
  it("answers GET /webhooks?challenge=…&token=<token> with 200 text/plain nosniff, then takes reports", async () => {
    const { origin, delivered } = await start(name);
    const answer = await fetch(`${origin}/webhooks?challenge=c-123%20x&token=${TOKEN}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await answer.text()).toBe("c-123 x");
    expect(delivered).toEqual([]);
    expect((await report(origin)).status).toBe(200);
    expect(delivered).toHaveLength(1);
  });

  it("401 for a wrong or missing token; a GET without challenge is 405 as before", async () => {
    const { origin } = await start(name);
    expect((await fetch(`${origin}/webhooks?challenge=c&token=wrong`)).status).toBe(401);
    expect((await fetch(`${origin}/webhooks?challenge=c`)).status).toBe(401);
    expect((await fetch(`${origin}/webhooks`)).status).toBe(405);
  });

  it("`challenge: false`: the GET is a 405", async () => {
    const { origin } = await start(name, { challenge: false });
    expect((await fetch(`${origin}/webhooks?challenge=c&token=${TOKEN}`)).status).toBe(405);
  });

  it("a function replaces the default", async () => {
    const { origin } = await start(name, {
      challenge: (request) =>
        request.method === "GET" && request.url.includes("hub.challenge=")
          ? { status: 200, body: "mine", headers: { "content-type": "text/plain" } }
          : undefined,
    });
    const mine = await fetch(`${origin}/webhooks?hub.challenge=1`);
    expect([mine.status, await mine.text()]).toEqual([200, "mine"]);
    expect((await fetch(`${origin}/webhooks?challenge=c&token=${TOKEN}`)).status).toBe(405);
  });

  it("a composed GET template: a GET with `challenge` is the challenge, the others its reports", async () => {
    const { origin, delivered } = await start(name, {
      composed: { type: "delivery", method: "GET", url: "/webhooks?msg={{id}}&s={{status}}" },
    });
    const answer = await fetch(`${origin}/webhooks?challenge=c9&token=${TOKEN}`);
    expect([answer.status, await answer.text()]).toEqual([200, "c9"]);
    const pushed = await fetch(`${origin}/webhooks?msg=abc:1&s=DELIVRD`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(pushed.status).toBe(200);
    expect(delivered).toEqual(["abc:1"]);
  });
});

describe("verification challenge: Express leaves the app's other routes alone", () => {
  it("GET /other is the app's", async () => {
    const { origin } = await start("express");
    const other = await fetch(`${origin}/other?challenge=c&token=${TOKEN}`);
    expect([other.status, await other.text()]).toEqual([200, "other route"]);
  });
});
