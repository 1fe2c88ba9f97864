import { createWorker } from "@reportkit/bullmq";

// Handles the reports receiver.ts queued, with the same typed reports a synchronous receiver
// gives. A handler that throws is retried (5 attempts, 1 s, 2 s, 4 s, 8 s apart); after that the
// job is kept as failed: `reportkit queue failed` lists it, `reportkit queue retry` puts it back.
const worker = createWorker({
  connection: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
  concurrency: 4,
  async onDelivery(report, job) {
    const at = report.deliveredAt?.toISOString() ?? "an unknown time";
    console.log(
      `delivery ${report.id} to ${report.mobile}: ${report.status} at ${at} (job ${job.jobId})`,
    );
  },
  async onCall(report) {
    console.log(
      `call ${report.mid} ${report.from} -> ${report.to}: ${report.status}, ${report.duration}s`,
    );
  },
});

// Finish the reports in hand, take no new ones, then exit.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    await worker.close();
    process.exit(0);
  });
}
console.log("worker ready");
