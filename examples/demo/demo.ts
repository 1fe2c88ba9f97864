// pnpm demo: the whole provider on this machine, end to end, in a few seconds.
//
//   1. starts the provider sandbox (management API + pusher, retries 2 s apart instead of 30 min)
//   2. starts an Express app with the reportkit receiver
//   3. registers a webhook for it through the typed management-API client: its secret is the
//      bearer of every push, its token the key of the verification the sandbox sends it first
//   4. sends an SMS and makes a call with that webhook_id
//   5. the receiver fails its first attempt on purpose, so the provider-style retry shows
//   6. prints the typed reports the handlers got and the sandbox's push-attempt log
import type { AddressInfo } from "node:net";
import { createClient } from "@reportkit/client";
import { type CallReport, type DeliveryReport, webhookReceiver } from "@reportkit/express";
import { createSandbox, formatAttempt, formatVerification } from "@reportkit/sandbox";
import express from "express";

const API_TOKEN = "demo-api-token";
// The webhook's two credentials, as the provider has them: the secret is the bearer of every
// push, the token (the validation key) is sent once, to verify the webhook.
const WEBHOOK_SECRET = "demo-webhook-secret-0123456789";
const VERIFICATION_TOKEN = "demo-verification-token-9876543210";
const RETRY_INTERVAL_MS = 2_000;
const GIVE_UP_MS = 25_000;

const section = (title: string) =>
  console.log(`\n── ${title} ${"─".repeat(Math.max(0, 60 - title.length))}`);

async function main(): Promise<boolean> {
  let verified = false;
  section("1. provider sandbox");
  const sandbox = await createSandbox({
    token: API_TOKEN,
    retryIntervalMs: RETRY_INTERVAL_MS,
    onAttempt: (attempt) => console.log(`  push  ${formatAttempt(attempt)}`),
    onVerification: (sent) => {
      verified = sent.outcome.passed;
      console.log(`  verify ${formatVerification(sent)}`);
    },
  });
  console.log(
    `  management API at ${sandbox.baseUrl} (retries ${RETRY_INTERVAL_MS / 1000} s apart)`,
  );

  section("2. receiver (Express + @reportkit/express)");
  const deliveries: DeliveryReport[] = [];
  const calls: CallReport[] = [];
  let failNextDelivery = true;
  const app = express();
  app.use(
    webhookReceiver({
      path: "/webhooks/reports",
      secret: WEBHOOK_SECRET,
      verification: { token: VERIFICATION_TOKEN },
      // The provider is in India; its wall-clock fields are read in that zone.
      timeZone: "Asia/Kolkata",
      onDelivery(report) {
        if (failNextDelivery) {
          failNextDelivery = false;
          console.log(
            `  recv  delivery ${report.id}: failing on purpose (the provider will retry)`,
          );
          throw new Error("simulated outage");
        }
        console.log(`  recv  delivery ${report.id}: ${report.status}`);
        deliveries.push(report);
      },
      onCall(report) {
        console.log(`  recv  call ${report.mid}: ${report.status}, ${report.duration} s`);
        calls.push(report);
      },
    }),
  );
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/reports`;
  console.log(`  listening at ${receiverUrl}`);

  try {
    section("3. register the webhook with the client");
    const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
    const webhook = await client.webhooks.create({
      name: "demo receiver",
      uri: receiverUrl,
      secret: WEBHOOK_SECRET,
      token: VERIFICATION_TOKEN, // the sandbox verifies the webhook before answering
    });
    const { raw: _, ...shown } = webhook;
    console.log(shown);
    const page = await client.webhooks.list();
    console.log(
      `  list: ${page.page.total} webhook(s), page ${page.page.current} of ${page.page.last}`,
    );

    section("4. send an SMS and make a call with webhook_id");
    const sms = sandbox.sendSms({ webhookId: webhook.id, custom: "order-1001" });
    const call = sandbox.makeCall({ webhookId: webhook.id, to: "919812345678" });
    console.log(`  SMS  ${sms.report.id}`);
    console.log(`  call ${call.report.mid}`);

    section("5. pushes (the first one fails, then is retried)");
    await sandbox.settled();

    section("6. typed reports received");
    for (const report of [...deliveries, ...calls]) {
      const { raw: _raw, ...typed } = report;
      console.log(typed);
    }

    section("push-attempt log");
    for (const attempt of sandbox.attempts()) console.log(`  ${formatAttempt(attempt)}`);

    const outcomes = [await sms.outcome, await call.outcome];
    const retried = sandbox.attempts().some((a) => a.outcome === "retrying");
    const ok =
      verified &&
      outcomes.every((o) => o === "delivered") &&
      retried &&
      deliveries.length === 1 &&
      calls.length === 1;
    console.log(
      ok
        ? "\nDemo OK: the webhook verified, 2 reports delivered, 1 after a retry."
        : `\nDemo FAILED: verified ${verified}, outcomes ${outcomes.join(", ")}, retried ${retried}.`,
    );
    return ok;
  } finally {
    await sandbox.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}

const watchdog = setTimeout(() => {
  console.error(`Demo FAILED: not finished after ${GIVE_UP_MS / 1000} s.`);
  process.exit(1);
}, GIVE_UP_MS);
watchdog.unref();

main().then(
  (ok) => {
    process.exitCode = ok ? 0 : 1;
  },
  (error: unknown) => {
    console.error("Demo FAILED:", error);
    process.exitCode = 1;
  },
);
