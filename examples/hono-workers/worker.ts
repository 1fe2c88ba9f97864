import { webhookReceiver } from "@reportkit/hono";
import { Hono } from "hono";

// REPORTKIT_SECRET is a Worker secret (`wrangler secret put REPORTKIT_SECRET`): reportkit reads
// it from c.env at the first request.
const app = new Hono<{ Bindings: { REPORTKIT_SECRET: string } }>();

// all: POST for the reports, GET for the webhook's verification challenge.
app.all(
  "/webhooks",
  webhookReceiver({
    onDelivery(report) {
      const at = report.deliveredAt?.toISOString() ?? "an unknown time";
      console.log(`delivery ${report.id} to ${report.mobile}: ${report.status} at ${at}`);
    },
    onCall(report) {
      console.log(
        `call ${report.mid} ${report.from} -> ${report.to}: ${report.status}, ${report.duration}s`,
      );
    },
  }),
);

app.get("/health", (c) => c.json({ ok: true }));

export default app;
