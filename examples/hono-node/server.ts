import { serve } from "@hono/node-server";
import { webhookReceiver } from "@reportkit/hono";
import { Hono } from "hono";

const app = new Hono();

// all: POST for the reports, GET for the webhook's verification challenge.
app.all(
  "/webhooks",
  webhookReceiver({
    // No `secret` here: it is read from REPORTKIT_SECRET.
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

serve(
  { fetch: app.fetch, port: Number(process.env.PORT ?? 3000), hostname: "127.0.0.1" },
  (info) => {
    console.log(`listening on http://127.0.0.1:${info.port}/webhooks`);
  },
);
