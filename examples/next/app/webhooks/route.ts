import { webhookReceiver } from "@reportkit/next";

// POST /webhooks on the Node.js runtime (Next's default). The token is REPORTKIT_SECRET, read
// when a request comes: `next build` needs no secret.
export const POST = webhookReceiver()
  .onDelivery((report) => {
    const at = report.deliveredAt?.toISOString() ?? "an unknown time";
    console.log(`delivery ${report.id} to ${report.mobile}: ${report.status} at ${at}`);
  })
  .onCall((report) => {
    console.log(
      `call ${report.mid} ${report.from} -> ${report.to}: ${report.status}, ${report.duration}s`,
    );
  });
