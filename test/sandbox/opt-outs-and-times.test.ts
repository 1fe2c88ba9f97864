// The sandbox's opt-outs (sms:unsubscription) and its reports' times: an opt-out pushed to a
// real receiver's onUnsubscribe as the event page shows it; a composed webhook refused; a DLR
// and a call dated `at` (a day of traffic), with the delivery `deliverySeconds` after submission.
import { createClient } from "@reportkit/client";
import {
  type CallReport,
  createReceiver,
  type DeliveryReport,
  type UnsubscribeReport,
} from "@reportkit/core";
import { createSandbox, FieldErrors, type Sandbox } from "@reportkit/sandbox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Running, serveReceiver, startRecorder } from "./servers.js";

const API_TOKEN = "sandbox-api-token";
const SECRET = "opt-out-secret-0123456789";

describe("the sandbox's opt-outs and report times", () => {
  let sandbox: Sandbox;
  let receiver: Running | undefined;
  beforeEach(async () => {
    sandbox = await createSandbox({ token: API_TOKEN, retryIntervalMs: 20 });
  });
  afterEach(async () => {
    await sandbox.close();
    await receiver?.close();
    receiver = undefined;
  });

  it("pushes an opt-out as the event page shows it, to the receiver's onUnsubscribe", async () => {
    const optOuts: UnsubscribeReport[] = [];
    receiver = await serveReceiver(
      createReceiver({
        secret: SECRET,
        onUnsubscribe: (report) => {
          optOuts.push(report);
        },
      }),
    );
    const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
    const hook = await client.webhooks.create({
      name: "opt-outs",
      uri: `${receiver.url}/reports`,
      secret: SECRET,
    });
    const at = new Date("2026-11-20T06:30:00.123Z");
    const sent = sandbox.optOut({
      webhookId: hook.id,
      receiver: "917002088123",
      type: "sender",
      value: "DEMOCO",
      at,
    });
    expect(await sent.outcome).toBe("delivered");
    expect(sent.report).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      receiver: "917002088123",
      type: "sender",
      value: "DEMOCO",
      created_at: "2026-11-20T06:30:00.123000Z",
      status: "Unsubscriber created successfully",
    });
    // Strict JSON, as the event page writes it.
    const [attempt] = sandbox.attempts();
    expect(attempt?.reportType).toBe("unsubscribe");
    expect(JSON.parse(String(attempt?.request.body))).toEqual(sent.report);
    expect(optOuts).toMatchObject([
      {
        type: "unsubscribe",
        id: sent.report.id,
        receiver: "917002088123",
        scope: "sender",
        value: "DEMOCO",
        createdAt: at,
      },
    ]);
  });

  it("refuses an opt-out to a composed webhook", async () => {
    const recorder = await startRecorder();
    receiver = recorder;
    const composed = sandbox.createComposedWebhook({
      name: "composed",
      type: "delivery",
      url: `${recorder.url}/dlr?id={{id}}&status={{status}}`,
      method: "GET",
    });
    expect(() => sandbox.optOut({ webhookId: composed.id })).toThrow(FieldErrors);
    expect(recorder.requests).toEqual([]);
  });

  it("dates a DLR and a call `at` the given time, delivery `deliverySeconds` after submission", async () => {
    const deliveries: DeliveryReport[] = [];
    const calls: CallReport[] = [];
    receiver = await serveReceiver(
      createReceiver({
        secret: SECRET,
        onDelivery: (report) => {
          deliveries.push(report);
        },
        onCall: (report) => {
          calls.push(report);
        },
      }),
    );
    const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
    const hook = await client.webhooks.create({
      name: "times",
      uri: `${receiver.url}/reports`,
      secret: SECRET,
    });
    const at = new Date("2026-11-20T03:00:00Z");
    const sms = sandbox.sendSms({ webhookId: hook.id, at, deliverySeconds: 40 });
    const call = sandbox.makeCall({ webhookId: hook.id, at, duration: 60 });
    expect([await sms.outcome, await call.outcome]).toEqual(["delivered", "delivered"]);
    // Documented payloads: wall clocks in Asia/Kolkata, read back as the same instants.
    expect(sms.report).toMatchObject({
      deliv_time: "2026-11-20 08:30:00",
      submit_time: "2026-11-20 08:29:20",
      sent_time: "2026-11-20 08:29:19",
    });
    expect(deliveries[0]).toMatchObject({
      deliveredAt: at,
      submittedAt: new Date("2026-11-20T02:59:20Z"),
      sentAt: new Date("2026-11-20T02:59:19Z"),
    });
    expect(calls[0]).toMatchObject({
      startedAt: new Date("2026-11-20T02:59:00Z"),
      endedAt: at,
      duration: 60,
    });
    expect(() =>
      sandbox.sendSms({ webhookId: hook.id, at: new Date(Number.NaN), deliverySeconds: -1 }),
    ).toThrow(FieldErrors);
  });
});
