// The rig of the dashboard's tests in Chromium: a live Express receiver (webhookReceiver with a
// secret and a verification token, an /ack route answering text, a /flaky route refusing its
// first push), a sandbox whose failed pushes wait an hour for "Retry now", and a browser page.
import { mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { CallReport, DeliveryReport, EventReport, UnsubscribeReport } from "@reportkit/core";
import { webhookReceiver } from "@reportkit/express";
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import express from "express";
import type { Page } from "playwright-core";
import { stop } from "../sandbox/servers.js";
import { type Chromium, startChromium } from "../support/chromium.js";

export const API_TOKEN = "dashboard-api-token-4242";
// The webhook's secret (the bearer of every push) and its token (its verification's key).
export const HOOK_SECRET = "dashboard-hook-secret-0123456789";
export const HOOK_TOKEN = "dashboard-hook-token-9876543210";
/** Where the screenshots go. */
export const ARTIFACTS = fileURLToPath(new URL("../artifacts/", import.meta.url));

export interface DashboardRig {
  sandbox: Sandbox;
  browser: Chromium;
  page: Page;
  /** The receiver's webhook URL (path /webhooks; /ack and /flaky beside it). */
  receiverUrl: string;
  /** The delivery reports the receiver handled. */
  received: DeliveryReport[];
  /** The call reports, opt-outs and events it handled. */
  calls: CallReport[];
  optOuts: UnsubscribeReport[];
  events: EventReport[];
  close(): Promise<void>;
}

export async function startDashboardRig(): Promise<DashboardRig> {
  const received: DeliveryReport[] = [];
  const calls: CallReport[] = [];
  const optOuts: UnsubscribeReport[] = [];
  const events: EventReport[] = [];
  const app = express();
  app.get("/ack", (_req, res) => {
    res.type("text/plain").send("ack");
  });
  // Refuses its first push as reportkit would a wrong secret, then takes the retry.
  let flakyCalls = 0;
  app.post("/flaky", (_req, res) => {
    flakyCalls++;
    if (flakyCalls === 1) {
      res.status(401).json({
        ok: false,
        error: {
          code: "unauthorized",
          message:
            "The secret in an Authorization: Bearer <secret> header is not one this receiver accepts.",
        },
      });
    } else res.json({ ok: true });
  });
  app.use(
    webhookReceiver({
      path: "/webhooks",
      secret: HOOK_SECRET,
      verification: { token: HOOK_TOKEN },
      timeZone: "Asia/Kolkata",
      onDelivery: (report) => {
        received.push(report);
      },
      onCall: (report) => {
        calls.push(report);
      },
      onUnsubscribe: (report) => {
        optOuts.push(report);
      },
      onEvent: (report) => {
        events.push(report);
      },
    }),
  );
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  const closeReceiver = () => stop(server);
  // An hour between attempts: a failed push waits for "Retry now".
  const sandbox = await createSandbox({ token: API_TOKEN, retryIntervalMs: 3_600_000 });
  const browser = await startChromium();
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    sandbox,
    browser,
    page,
    receiverUrl,
    received,
    calls,
    optOuts,
    events,
    close: async () => {
      await browser.close();
      await sandbox.close();
      await closeReceiver();
    },
  };
}
