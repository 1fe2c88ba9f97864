// One receiver instance of a service run as several: `receiver-process.ts <express|fastify|hono>`
// serves POST /webhooks with the given adapter, deduplicating through @reportkit/redis. Each
// handler run appends "<report id>" to EFFECTS_FILE (the side effect the tests count) after
// HANDLER_MS. With HANG=1 the handler instead appends "start <id>" and never settles (the test
// kills the process mid-handler). With REDIS_CLUSTER (the nodes' URLs, comma-separated) instead
// of REDIS_URL it uses a Redis Cluster. Prints "listening on <url>" once ready.
import { appendFileSync } from "node:fs";
import type { DeliveryReport } from "@reportkit/core";
import { redisDedupe } from "@reportkit/redis";
import { requiredEnv, serveReceiver } from "../support/serve-receiver.js";

const [framework] = process.argv.slice(2);
const env = requiredEnv;
const token = env("TOKEN");
const effectsFile = env("EFFECTS_FILE");
const handlerMs = Number(process.env.HANDLER_MS ?? "0");

const cluster = process.env.REDIS_CLUSTER;
const dedupe = redisDedupe({
  connection: cluster === undefined ? env("REDIS_URL") : { cluster: cluster.split(",") },
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

const options = { secret: token, dedupe, deadlineMs: Number(env("DEADLINE_MS")), onDelivery };

await serveReceiver(framework, options, dedupe);
