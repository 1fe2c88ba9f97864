// A receiver in queue mode: `node queue-server.mjs <framework>` (express, fastify or hono), the
// adapter with `queue` instead of handlers: BullMQ on BENCH_REDIS_URL, or with
// BENCH_QUEUE_STORE=pg-boss pg-boss on BENCH_DATABASE_URL. Each request gets a unique dedupe key
// (the report's own, plus a counter), so every 202 is a real job added, not a duplicate found.
// "handled" counts the adds the store acknowledged (Redis, or Postgres's commit).
import { defaultDedupeKey } from "@reportkit/core";
import { announce, countHandled } from "./common.mjs";

const [framework] = process.argv.slice(2);
const queue =
  process.env.BENCH_QUEUE_STORE === "pg-boss"
    ? (await import("@reportkit/pg-boss")).pgBossQueue({
        connectionString: process.env.BENCH_DATABASE_URL,
        queueName: process.env.BENCH_QUEUE,
      })
    : (await import("@reportkit/bullmq")).bullmqQueue({
        connection: process.env.BENCH_REDIS_URL,
        queueName: process.env.BENCH_QUEUE,
      });
const counting = {
  async enqueue(report, key) {
    await queue.enqueue(report, key);
    countHandled();
  },
};
let n = 0;
const mod = await import(`./${framework}.mjs`);
announce(
  await mod.reportkit({
    queue: counting,
    dedupe: { key: (report) => `${defaultDedupeKey(report)}:${++n}` },
  }),
);
