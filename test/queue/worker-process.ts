// A queue-mode worker in its own process, for tests that kill it. Each handler call is recorded
// in the Redis list `reportkit-test:calls` as "<event>:<pid>:<report id>", so the test sees what
// every process did, even one killed with SIGKILL.
//
// Env: REDIS_URL, QUEUE, LOCK_MS (lockDurationMs and stalledIntervalMs), MODE: "hang" (the
// handler starts and never finishes) or "work" (it finishes at once).
import { createWorker } from "@reportkit/bullmq";
import { Redis } from "ioredis";

const { REDIS_URL = "", QUEUE = "reportkit", LOCK_MS = "30000", MODE = "work" } = process.env;
const log = new Redis(REDIS_URL);

const worker = createWorker({
  connection: REDIS_URL,
  queueName: QUEUE,
  lockDurationMs: Number(LOCK_MS),
  stalledIntervalMs: Number(LOCK_MS),
  async onDelivery(report) {
    await log.rpush("reportkit-test:calls", `started:${process.pid}:${report.id}`);
    if (MODE === "hang") await new Promise(() => {});
    await log.rpush("reportkit-test:calls", `done:${process.pid}:${report.id}`);
  },
});

process.on("SIGTERM", async () => {
  await worker.close();
  log.disconnect();
});
console.log(`worker ${process.pid} ready`);
