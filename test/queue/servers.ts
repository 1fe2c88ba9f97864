// The receiver in queue mode behind each adapter, on a real HTTP port.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { ReportQueue } from "@reportkit/core/adapter";
import { webhookReceiver as expressReceiver } from "@reportkit/express";
import { webhookReceiver as fastifyReceiver } from "@reportkit/fastify";
import { webhookReceiver as honoReceiver } from "@reportkit/hono";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { TOKEN } from "../fixtures/samples.js";

export interface QueueApp {
  /** The receiver's URL, http://127.0.0.1:<port>/webhooks. */
  readonly url: string;
  close(): Promise<void>;
}

export const ADAPTERS = ["express", "fastify", "hono"] as const;
export type Adapter = (typeof ADAPTERS)[number];

export async function startQueueApp(adapter: Adapter, queue: ReportQueue): Promise<QueueApp> {
  if (adapter === "fastify") {
    const app = Fastify();
    await app.register(fastifyReceiver, { path: "/webhooks", secret: TOKEN, queue });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = app.server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/webhooks`, close: () => app.close() };
  }
  let server: Server;
  if (adapter === "express") {
    const app = express();
    app.use(expressReceiver({ path: "/webhooks", secret: TOKEN, queue }));
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
  } else {
    const app = new Hono();
    app.post("/webhooks", honoReceiver({ secret: TOKEN, queue }));
    server = await new Promise<Server>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () =>
        resolve(s as Server),
      );
    });
  }
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** POSTs a report as the provider does, with the token. */
export async function push(url: string, payload: unknown) {
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(payload),
  });
  return { status: res.status, body: await res.json() };
}
