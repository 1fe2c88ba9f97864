import { webhookReceiver } from "@reportkit/express";
import express from "express";

const app = express();

// Mounted first, so reportkit reads each body itself (with its size limit, and lenient with the
// provider's sloppy JSON). It also works behind express.json(); see the README.
app.use(
  webhookReceiver({
    path: "/webhooks",
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

// The rest of the app, with its own parsers.
app.use(express.json());
app.get("/health", (_req, res) => {
  res.json({ ok: true });
});

const server = app.listen(Number(process.env.PORT ?? 3000), () => {
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : process.env.PORT;
  console.log(`listening on http://127.0.0.1:${port}/webhooks`);
});
