// A worker draining a queue that run.ts filled: `node queue-worker.mjs`, with BENCH_REDIS_URL,
// BENCH_QUEUE, BENCH_CONCURRENCY and BENCH_COUNT. The handler does nothing, so this measures
// what reportkit and BullMQ cost per report. Prints one line: the reports per second between
// the first and the last handler call, and how many ran.
import { createWorker } from "@reportkit/bullmq";

const count = Number(process.env.BENCH_COUNT);
let first = 0;
let handled = 0;
let done;
const finished = new Promise((resolve) => {
  done = resolve;
});

const worker = createWorker({
  connection: process.env.BENCH_REDIS_URL,
  queueName: process.env.BENCH_QUEUE,
  concurrency: Number(process.env.BENCH_CONCURRENCY),
  onDelivery() {
    if (handled === 0) first = performance.now();
    handled++;
    if (handled === count) done(performance.now());
  },
});

const last = await finished;
await worker.close();
const seconds = (last - first) / 1000;
process.stdout.write(
  `${JSON.stringify({ handled, seconds, reportsPerSecond: (handled - 1) / seconds })}\n`,
);
process.exit(0);
