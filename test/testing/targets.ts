// The targets @reportkit/testing's sendReport takes, each as a user builds it with the receiver
// on /webhooks: Express (served on an ephemeral port), Fastify (inject), Hono (fetch), core's
// receiver (fetch), and a URL of a server really listening. What a target opened is closed by
// `closeTargets()` (each test file calls it after each test).
import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type ComposedTemplate, createReceiver, type ReceiverOptions } from "@reportkit/core";
import { webhookReceiver as expressReceiver } from "@reportkit/express";
import { webhookReceiver as fastifyReceiver } from "@reportkit/fastify";
import { webhookReceiver as honoReceiver } from "@reportkit/hono";
import type { ReportTarget } from "@reportkit/testing";
import express from "express";
import Fastify, { type FastifyInstance } from "fastify";
import { Hono } from "hono";

type Options = ReceiverOptions<ComposedTemplate | undefined>;

/** What to close after a test: servers and apps the targets (and the test) opened. */
export const cleanup: (() => Promise<unknown>)[] = [];

export async function closeTargets(): Promise<void> {
  await Promise.all(cleanup.splice(0).map((close) => close()));
}

/** Each target as a user builds it, the receiver on /webhooks. */
export const TARGETS: Record<string, (options: Options) => Promise<ReportTarget>> = {
  express: async (options) => {
    const app = express();
    app.use(expressReceiver({ path: "/webhooks", ...options } as never));
    return app;
  },
  fastify: async (options) => {
    const app: FastifyInstance = Fastify();
    await app.register(fastifyReceiver, options as never);
    cleanup.push(() => app.close());
    return app;
  },
  hono: async (options) => {
    const app = new Hono();
    app.on(["GET", "POST", "PUT"], "/webhooks", honoReceiver(options as never));
    return app;
  },
  "core receiver": async (options) => createReceiver(options as never),
  "URL of a listening server": async (options) => {
    const app = express();
    app.use(expressReceiver({ path: "/webhooks", ...options } as never));
    const server: Server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    cleanup.push(() => new Promise((resolve) => server.close(resolve)));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  },
};
