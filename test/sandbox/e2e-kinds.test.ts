// The sandbox pushes every kind the provider does, through its HTTP API, to a core receiver on
// node:http, each body reaching the handler of its kind, typed, in both payload shapes: a
// Click2Call report (`POST sandbox/c2c`), opt-outs and other events (`POST sandbox/notifications`)
// routed as the pages say (an event to the webhook subscribed to it; a smart-link visit to its
// link's webhook), with the webhook's secret as the bearer and the provider's retries.
import { type Client, createClient } from "@reportkit/client";
import {
  type CallReport,
  createReceiver,
  type EventReport,
  type UnsubscribeReport,
} from "@reportkit/core";
import { createSandbox, PAYLOAD_STYLES, type PushAttempt, type Sandbox } from "@reportkit/sandbox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pushedBody } from "./payloads.js";
import { type Running, serveReceiver } from "./servers.js";

const API_TOKEN = "sandbox-api-token";
const HOOK_SECRET = "webhook-secret-0123456789";

let sandbox: Sandbox;
let client: Client;
let receiver: Running | undefined;

afterEach(async () => {
  await sandbox.close();
  await receiver?.close();
  receiver = undefined;
});

/** What the sandbox's endpoints answer: the push's facts, or the refused fields. */
interface Answer {
  data: { report_id: string; call_id?: string; webhook_id: string; subscribed: boolean };
  errors: Record<string, string[]>;
}

/** A sandbox-only endpoint, as curl or the CLI calls it: its status and JSON. */
async function post(path: string, body: object): Promise<{ status: number; json: Answer }> {
  const reply = await fetch(new URL(path, sandbox.baseUrl), {
    method: "POST",
    headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: reply.status, json: await reply.json() };
}

/** Resolves once the push log has the report's last attempt (delivered, dropped or skipped). */
async function settled(reportId: string): Promise<PushAttempt[]> {
  await sandbox.settled();
  return sandbox.attempts().filter((a) => a.reportId === reportId);
}

describe.each(PAYLOAD_STYLES)("payloads: %s", (payloads) => {
  const calls: CallReport[] = [];
  const optOuts: UnsubscribeReport[] = [];
  const events: EventReport[] = [];
  let failFirst = 0;

  beforeEach(async () => {
    calls.length = 0;
    optOuts.length = 0;
    events.length = 0;
    failFirst = 0;
    sandbox = await createSandbox({ token: API_TOKEN, retryIntervalMs: 20, payloads });
    client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
    receiver = await serveReceiver(
      createReceiver({
        secret: HOOK_SECRET,
        logger: false,
        onCall: (r) => {
          calls.push(r);
        },
        onUnsubscribe: (r) => {
          if (failFirst-- > 0) throw new Error("the suppression list is down");
          optOuts.push(r);
        },
        onEvent: (r) => {
          events.push(r);
        },
      }),
    );
  });
  const hook = () =>
    client.webhooks.create({ name: "kinds", uri: `${receiver?.url}/hooks`, secret: HOOK_SECRET });

  it("POST sandbox/c2c pushes a Click2Call report as its page shows it, to onCall, typed", async () => {
    const { id } = await hook();
    const sent = await post("sandbox/c2c", { webhook_id: id, to: "flow:220", duration: 31 });
    expect(sent.status).toBe(200);
    expect(sent.json.data.report_id).toBe(sent.json.data.call_id);
    const [attempt] = await settled(sent.json.data.report_id);
    expect(attempt).toMatchObject({ reportType: "call", event: null, outcome: "delivered" });
    expect(attempt?.request.headers.authorization).toBe(`Bearer ${HOOK_SECRET}`);
    const body = JSON.parse(String(attempt?.request.body));
    expect(Object.keys(body)).toEqual([
      ...(payloads === "complete" ? ["webhook_id"] : []),
      "bridge",
      "from",
      "to",
      "source",
      "start_at",
      "end_at",
      "date",
      "unixtime",
      "duration",
      "billing",
      "status",
      "status1",
      "status2",
      "recording_url",
      "hangup_by",
    ]);
    const [report] = calls;
    expect(report).toMatchObject({
      type: "call",
      source: "C2C",
      mid: null,
      to: null,
      flowId: 220,
      from: "918068281235",
      duration: 31,
      billing: 23,
      status: "COMPLETED",
      status1: "RECEIVED",
      status2: "ANSWER",
      hangupBy: "caller",
      final: true,
      outcome: "answered",
      warnings: [],
    });
    expect(report?.reportedAt?.getTime()).toBe(Number(body.unixtime) * 1000);
    expect(report?.recordingUrl).toBe(body.recording_url);
    // The recording is the sandbox's own: its Call Logs list the call under its call id.
    const logs = await client.callLogs.list({});
    expect(logs.data.map((c) => [c.id, c.callTo, c.billing])).toEqual([
      [sent.json.data.call_id, "flow:220", 23],
    ]);
  });

  it("an opt-out goes to the webhook subscribed to sms:unsubscription (or voice:unsubscription), to onUnsubscribe, retried as a DLR", async () => {
    const { id } = await hook();
    // No subscription, no webhook: nowhere to push; nothing subscribed, nothing pushed.
    const nowhere = await post("sandbox/notifications", { event: "sms:unsubscription" });
    expect([nowhere.status, nowhere.json.errors.webhook_id]).toEqual([
      422,
      [
        "No webhook is subscribed to sms:unsubscription: subscribe one (POST developer/subscriptions with event sms:unsubscription, identity all and its webhook_id), or give webhook_id to have the sandbox subscribe it.",
      ],
    ]);
    await client.subscriptions.create({
      event: "sms:unsubscription",
      identity: "all",
      webhookId: id,
    });
    failFirst = 1;
    const sms = await post("sandbox/notifications", {
      event: "sms:unsubscription",
      receiver: "919812345678",
    });
    expect(sms.status).toBe(200);
    expect(sms.json.data).toMatchObject({ report_type: "unsubscribe", subscribed: false });
    const attempts = await settled(sms.json.data.report_id);
    expect(attempts.map((a) => [a.attempt, a.statusCode, a.outcome, a.event])).toEqual([
      [1, 500, "retrying", "sms:unsubscription"],
      [2, 200, "delivered", "sms:unsubscription"],
    ]);
    // Given a webhook_id, the sandbox subscribes it to voice:unsubscription first.
    const voice = await post("sandbox/notifications", {
      event: "voice:unsubscription",
      webhook_id: id,
      type: "all",
    });
    expect(voice.json.data).toMatchObject({ subscribed: true, webhook_id: id });
    await settled(voice.json.data.report_id);
    const subscribed = await client.subscriptions.list();
    expect(subscribed.data.map((s) => [s.event, s.identity, s.webhookId])).toEqual([
      ["voice:unsubscription", "all", id],
      ["sms:unsubscription", "all", id],
    ]);
    expect(optOuts.map((r) => [r.id, r.receiver, r.scope, r.value, r.status])).toEqual([
      [
        sms.json.data.report_id,
        "919812345678",
        "sender",
        "RPTKIT",
        "Unsubscriber created successfully",
      ],
      [voice.json.data.report_id, "919876543210", "all", "*", "Unsubscriber created successfully"],
    ]);
    expect(optOuts[0]?.createdAt).toBeInstanceOf(Date);
    expect(optOuts[0]?.warnings).toEqual([]);
  });

  it("another channel's event, a contact update and a smart-link visit reach onEvent, by their names", async () => {
    const { id } = await hook();
    const status = await post("sandbox/notifications", {
      event: "whatsapp:message:status",
      webhook_id: id,
      status: "read",
      foreign_id: "order-42",
    });
    const inbound = await post("sandbox/notifications", {
      event: "vmn:message:in",
      webhook_id: id,
      text: "STOP",
    });
    const contact = await post("sandbox/notifications", {
      event: "contacts:subscriber:subscription",
      webhook_id: id,
      id: 86,
      status: "created",
    });
    // A smart-link visit has no event to subscribe to: it goes to its link's webhook.
    const refused = await post("sandbox/notifications", { event: "link:visit" });
    expect(refused.status).toBe(422);
    const visit = await post("sandbox/notifications", {
      event: "link:visit",
      webhook_id: id,
      mobile: "919812345678",
    });
    for (const sent of [status, inbound, contact, visit]) {
      expect(sent.status).toBe(200);
      const [attempt] = await settled(sent.json.data.report_id);
      expect(attempt?.outcome).toBe("delivered");
    }
    const visitBody = sandbox.attempts().find((a) => a.event === "link:visit")?.request.body;
    // The smart-link page writes its body with a trailing comma; documented, so does the sandbox.
    expect(pushedBody(String(visitBody), payloads)).toMatchObject({ mobile: "919812345678" });
    expect(events.map((e) => [e.event, e.id, e.status])).toEqual([
      ["whatsapp:message:status", status.json.data.report_id, "read"],
      ["vmn:message:in", inbound.json.data.report_id, null],
      ["contacts:subscriber:subscription", "86", "Subscriber created successfully"],
      ["link:visit", visit.json.data.report_id, null],
    ]);
    expect(events[0]?.payload).toMatchObject({
      channel: "whatsapp",
      foreign_id: "order-42",
      read_at: expect.any(String),
    });
    expect(events[1]?.payload).toMatchObject({ message: { payload: { text: "STOP" } } });
    expect(events.every((e) => e.warnings.length === 0)).toBe(true);
  });

  it("refuses what cannot be pushed, saying why: an unknown event, a field the body lacks, a composed webhook", async () => {
    const { id } = await hook();
    const unknown = await post("sandbox/notifications", { event: "sms:message:status" });
    expect(unknown.status).toBe(422);
    expect(unknown.json.errors.event?.[0]).toMatch(
      /^The selected event is invalid; it is one of sms:unsubscription, /,
    );
    const foreign = await post("sandbox/notifications", {
      event: "sms:unsubscription",
      webhook_id: id,
      text: "hi",
    });
    expect([foreign.status, foreign.json.errors]).toEqual([
      422,
      {
        text: [
          "The text field is not part of a sms:unsubscription push; it takes receiver, type, value.",
        ],
      },
    ]);
    const composed = sandbox.createComposedWebhook({
      name: "composed",
      type: "delivery",
      method: "GET",
      url: `${receiver?.url}/hooks?id={{id}}&status={{status}}`,
    });
    const toComposed = await post("sandbox/notifications", {
      event: "whatsapp:message:status",
      webhook_id: composed.id,
    });
    expect([toComposed.status, toComposed.json.errors.webhook_id]).toEqual([
      422,
      [
        "The selected webhook is a composed webhook for SMS delivery reports: an opt-out or an event goes to a standard webhook.",
      ],
    ]);
    // Nothing was pushed, and no subscription was made for the refused ones.
    expect(sandbox.attempts()).toEqual([]);
    expect((await client.subscriptions.list()).data).toEqual([]);
  });
});
