// What `reportkit reconcile` is for, tried locally as the docs describe it: the receiver is
// stopped, SMS and calls are sent through the sandbox until it gives up on their reports, the
// receiver is started again, `reportkit reconcile` pulls the day from the sandbox's pull APIs,
// and every report is recorded once.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { main } from "@reportkit/cli";
import { createClient } from "@reportkit/client";
import { webhookReceiver } from "@reportkit/express";
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import express from "express";
import { afterAll, beforeAll, expect, it } from "vitest";

const API_TOKEN = "round-trip-api-token-1234";
const SECRET = "round-trip-webhook-secret-5678";

let sandbox: Sandbox;
let server: Server | undefined;
let port = 0;
const recorded: { kind: string; key: string; reconciled: string | null }[] = [];

const app = express();
app.use(
  webhookReceiver({
    secret: SECRET,
    logger: false,
    onDelivery: (report, ctx) => {
      recorded.push({
        kind: "delivery",
        key: `${report.id}:${report.status}`,
        reconciled: ctx.headers.get("x-reportkit-reconciled"),
      });
    },
    onCall: (report, ctx) => {
      recorded.push({
        kind: "call",
        key: `${report.mid}:${report.status}`,
        reconciled: ctx.headers.get("x-reportkit-reconciled"),
      });
    },
  }),
);

async function startReceiver(): Promise<void> {
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(port, "127.0.0.1", () => resolve(s));
  });
  port = (server.address() as AddressInfo).port;
}

async function stopReceiver(): Promise<void> {
  const s = server;
  server = undefined;
  s?.closeAllConnections();
  await new Promise((resolve) => s?.close(resolve));
}

async function reportkit(...args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(["node", "reportkit", "reconcile", ...args], {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: {
      REPORTKIT_BASE_URL: sandbox.baseUrl,
      REPORTKIT_API_TOKEN: API_TOKEN,
      REPORTKIT_SECRET: SECRET,
    },
    stopSignal: () => new Promise(() => {}),
  });
  return { code, stderr, summary: JSON.parse(stdout.trimEnd().split("\n").at(-1) ?? "null") };
}

beforeAll(async () => {
  // The provider's pace, quickened: 3 retries 20 ms apart, then it gives up.
  sandbox = await createSandbox({ token: API_TOKEN, retryIntervalMs: 20, retries: 3 });
});
afterAll(async () => {
  await sandbox?.close();
  await stopReceiver();
});

it("stop the receiver, send until the sandbox gives up, start it, reconcile: every report recorded once", async () => {
  await startReceiver();
  const url = `http://127.0.0.1:${port}/webhooks`;
  const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
  const webhook = await client.webhooks.create({ name: "app", uri: url, secret: SECRET });

  // Before the outage: pushed and recorded.
  const before = [
    sandbox.sendSms({ webhookId: webhook.id }),
    sandbox.sendSms({ webhookId: webhook.id }),
  ];
  expect(await Promise.all(before.map((s) => s.outcome))).toEqual(["delivered", "delivered"]);

  // The outage: the sandbox tries 4 times each, then drops the reports.
  await stopReceiver();
  const lost = [
    sandbox.sendSms({ webhookId: webhook.id, status: "DELIVRD" }),
    sandbox.sendSms({ webhookId: webhook.id, status: "DELIVRD", custom: "order-7" }),
    sandbox.sendSms({ webhookId: webhook.id, status: "UNDELIV" }),
    sandbox.sendSms({ webhookId: webhook.id, status: "DLT-HEADER-NOT-REGISTERED" }),
  ];
  const waiting = sandbox.sendSms({ webhookId: webhook.id, status: "AWAITING-DLR" });
  const calls = [
    sandbox.makeCall({ webhookId: webhook.id, status: "ANSWER" }),
    sandbox.makeCall({ webhookId: webhook.id, status: "NOANSWER" }),
  ];
  const outcomes = await Promise.all([...lost, waiting, ...calls].map((s) => s.outcome));
  expect(outcomes).toEqual(Array(7).fill("dropped"));
  expect(recorded).toHaveLength(2);

  // Back up. The day's messages are read back from the sandbox's Pull DLR API.
  await startReceiver();
  const day = lost[0]?.report.submit_time.slice(0, 10) as string;
  const sms = await reportkit("--date", day, "--to", url, "--json");
  expect(sms.code, sms.stderr).toBe(0);
  expect(sms.summary).toMatchObject({
    pulled: 7,
    pending: 1,
    final: 6,
    processed: 4,
    duplicate: 2,
    failed: 0,
  });
  const callRun = await reportkit("--calls", "--date", day, "--to", url, "--json");
  expect(callRun.code, callRun.stderr).toBe(0);
  expect(callRun.summary).toMatchObject({ pulled: 2, pending: 0, processed: 2, duplicate: 0 });

  // Every report once: the two pushed, the four lost SMS and the two lost calls, reconciled.
  const expected = [
    ...[...before, ...lost].map((s) => `delivery ${s.report.id}:${s.report.status}`),
    ...calls.map((c) => `call ${c.report.mid}:${c.report.status}`),
  ];
  expect(recorded.map((r) => `${r.kind} ${r.key}`).sort()).toEqual(expected.sort());
  expect(recorded.filter((r) => r.reconciled !== null)).toHaveLength(6);

  // Run again: nothing new.
  const again = await reportkit("--date", day, "--to", url, "--json");
  expect(again.summary).toMatchObject({ processed: 0, duplicate: 6 });
  expect(recorded).toHaveLength(8);
});
