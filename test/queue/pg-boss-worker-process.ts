// A pg-boss worker in its own process, for tests that kill it (kill -9): each report's handler
// inserts it into the test's `deliveries` table through ctx.tx and keeps its transaction open
// up to HOLD_MS (a random time), so that a kill or a Postgres restart finds some open. A short
// lease (LEASE_MS) and maintenance every second, so that a dead worker's jobs are taken over
// within seconds. Prints "worker <pid> ready".
//
// Env: DATABASE_URL, QUEUE, HOLD_MS, LEASE_MS.
import { createWorker } from "@reportkit/pg-boss";

const { DATABASE_URL = "", QUEUE = "reportkit", HOLD_MS = "0", LEASE_MS = "2000" } = process.env;

const worker = createWorker({
  connectionString: DATABASE_URL,
  queueName: QUEUE,
  concurrency: 4,
  pollingIntervalMs: 50,
  stalledIntervalMs: 1000,
  retry: { delayMs: 50, maxDelayMs: 500, forMs: 600_000 },
  inbox: { leaseMs: Number(LEASE_MS) },
  onError: () => {},
  async onDelivery(report, ctx) {
    await ctx.tx.query(
      "INSERT INTO deliveries (report_id, status, framework) VALUES ($1, $2, $3)",
      [report.id, report.status, `worker ${process.pid}`],
    );
    const hold = Number(HOLD_MS);
    if (hold > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * hold));
  },
});

process.once("SIGTERM", async () => {
  await worker.close();
  process.exit(0);
});
console.log(`worker ${process.pid} ready`);
