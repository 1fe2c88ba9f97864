import { bullmqQueue } from "@reportkit/bullmq";
import { webhookReceiver } from "@reportkit/express";
import express from "express";

// The receiver does no work of its own: it authenticates and validates each report, adds it to
// the queue, and answers 202 once Redis acknowledged it (503 while Redis is unreachable, so the
// provider retries). worker.ts, another process, handles the reports.
const queue = bullmqQueue({ connection: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" });

const app = express();
// No `secret` here: it is read from REPORTKIT_SECRET. No handlers either: `queue` replaces them.
app.use(webhookReceiver({ path: "/webhooks", queue }));
app.get("/health", (_req, res) => {
  res.json({ ok: true });
});

const server = app.listen(Number(process.env.PORT ?? 3000), () => {
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : process.env.PORT;
  console.log(`listening on http://127.0.0.1:${port}/webhooks`);
});

process.on("SIGTERM", () => {
  server.close(async () => {
    await queue.close();
    process.exit(0);
  });
});
