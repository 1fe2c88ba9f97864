// A worker draining a queue that queue.ts filled: `node queue-worker.mjs`, with BENCH_QUEUE,
// BENCH_CONCURRENCY, BENCH_COUNT, and BENCH_REDIS_URL (BullMQ) or, with
// BENCH_QUEUE_STORE=pg-boss, BENCH_DATABASE_URL (pg-boss: each report in the inbox's
// transaction, with its job's completion). The handler does nothing, so this measures what
// reportkit and the queue cost per report. Prints one line: the reports per second between the
// first and the last handler call, and how many ran.
const count = Number(process.env.BENCH_COUNT);
let first = 0;
let handled = 0;
let done;
const finished = new Promise((resolve) => {
  done = resolve;
});
function onDelivery() {
  if (handled === 0) first = performance.now();
  handled++;
  if (handled === count) done(performance.now());
}

const common = {
  queueName: process.env.BENCH_QUEUE,
  concurrency: Number(process.env.BENCH_CONCURRENCY),
  onDelivery,
};
const worker =
  process.env.BENCH_QUEUE_STORE === "pg-boss"
    ? (await import("@reportkit/pg-boss")).createWorker({
        ...common,
        connectionString: process.env.BENCH_DATABASE_URL,
        pollingIntervalMs: 50,
      })
    : (await import("@reportkit/bullmq")).createWorker({
        ...common,
        connection: process.env.BENCH_REDIS_URL,
      });

const last = await finished;
await worker.close();
const seconds = (last - first) / 1000;
process.stdout.write(
  `${JSON.stringify({ handled, seconds, reportsPerSecond: (handled - 1) / seconds })}\n`,
);
process.exit(0);
