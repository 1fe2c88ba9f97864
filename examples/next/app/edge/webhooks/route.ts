import { webhookReceiver } from "@reportkit/next";

// The same receiver on the Edge runtime: POST /edge/webhooks.
export const runtime = "edge";

export const POST = webhookReceiver({
  onDelivery(report) {
    console.log(`edge delivery ${report.id}: ${report.status}`);
  },
});
