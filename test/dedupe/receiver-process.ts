// One receiver instance of a service run as several: `receiver-process.ts <express|fastify|hono>`
// serves POST /webhooks with the given adapter, deduplicating through @reportkit/redis. Each
// handler run appends "<report id>" to EFFECTS_FILE (the side effect the tests count) after
// HANDLER_MS. With HANG=1 the handler instead appends "start <id>" and never settles (the test
// kills the process mid-handler). With REDIS_CLUSTER (the nodes' URLs, comma-separated) instead
// of REDIS_URL it uses a Redis Cluster. Prints "listening on <url>" once ready.
import { appendFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { DeliveryReport } from "@reportkit/core";
import { redisDedupe } from "@reportkit/redis";

const [framework] = process.argv.slice(2);
const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`receiver-process: ${name} is not set`);
  return value;
};
const token = env("TOKEN");
const effectsFile = env("EFFECTS_FILE");
const handlerMs = Number(process.env.HANDLER_MS ?? "0");
const path = "/webhooks";

const cluster = process.env.REDIS_CLUSTER;
const dedupe = redisDedupe({
  ...(cluster === undefined ? { url: env("REDIS_URL") } : { cluster: cluster.split(",") }),
  leaseMs: Number(env("LEASE_MS")),
  timeoutMs: 500,
});

async function onDelivery(report: DeliveryReport): Promise<void> {
  if (process.env.HANG === "1") {
    appendFileSync(effectsFile, `start ${report.id}\n`);
    await new Promise(() => {});
  }
  await new Promise((resolve) => setTimeout(resolve, handlerMs));
  appendFileSync(effectsFile, `${report.id}\n`);
}

const options = { token, dedupe, deadlineMs: Number(env("DEADLINE_MS")), onDelivery };

/** Serves the receiver with the adapter asked for; resolves to the port. */
async function start(): Promise<number> {
  if (framework === "express") {
    const { default: express } = await import("express");
    const { webhookReceiver } = await import("@reportkit/express");
    const app = express();
    app.use(webhookReceiver({ path, ...options }));
    const server = await new Promise<import("node:http").Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    return (server.address() as AddressInfo).port;
  }
  if (framework === "fastify") {
    const { default: Fastify } = await import("fastify");
    const { webhookReceiver } = await import("@reportkit/fastify");
    const app = Fastify();
    await app.register(webhookReceiver, { path, ...options });
    await app.listen({ port: 0, host: "127.0.0.1" });
    return (app.server.address() as AddressInfo).port;
  }
  if (framework === "hono") {
    const { serve } = await import("@hono/node-server");
    const { Hono } = await import("hono");
    const { webhookReceiver } = await import("@reportkit/hono");
    const app = new Hono();
    app.post(path, webhookReceiver(options));
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    return (server.address() as AddressInfo).port;
  }
  throw new Error(`receiver-process: unknown framework "${framework}" (express, fastify, hono)`);
}

const port = await start();
console.log(`${framework} listening on http://127.0.0.1:${port}`);
process.once("SIGTERM", async () => {
  await dedupe.close();
  process.exit(0);
});
