import { webhookReceiver } from "@reportkit/fastify";
import Fastify from "fastify";

const app = Fastify({ logger: true });

// Its own encapsulated context: the catch-all body parser it installs for the webhook route
// does not change how the app's other routes parse bodies.
await app.register(webhookReceiver, {
  path: "/webhooks",
  // No `secret` here: it is read from REPORTKIT_SECRET.
  onDelivery(report) {
    const at = report.deliveredAt?.toISOString() ?? "an unknown time";
    app.log.info(`delivery ${report.id} to ${report.mobile}: ${report.status} at ${at}`);
  },
  onCall(report) {
    app.log.info(
      `call ${report.mid} ${report.from} -> ${report.to}: ${report.status}, ${report.duration}s`,
    );
  },
});

app.get("/health", async () => ({ ok: true }));

const origin = await app.listen({ port: Number(process.env.PORT ?? 3000), host: "127.0.0.1" });
console.log(`listening on ${origin}/webhooks`);
