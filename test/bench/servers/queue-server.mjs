// A receiver in queue mode: `node queue-server.mjs <framework>` (express, fastify or hono), the
// adapter with `queue` (BullMQ on BENCH_REDIS_URL) instead of handlers. Each request gets a
// unique dedupe key (the report's own, plus a counter), so every 202 is a real job added to
// Redis, not a duplicate found. "handled" counts the adds Redis acknowledged.
import { bullmqQueue } from "@reportkit/bullmq";
import { defaultDedupeKey } from "@reportkit/core";
import { announce, countHandled } from "./common.mjs";

const [framework] = process.argv.slice(2);
const queue = bullmqQueue({
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
