// Sandbox → @reportkit/core receiver on node:http → typed handler, over real sockets, with the
// reports in both shapes the sandbox pushes (documented, complete).
import { createClient } from "@reportkit/client";
import {
  type CallReport,
  type ComposedTemplate,
  createReceiver,
  type DeliveryReport,
  type ReportkitError,
} from "@reportkit/core";
import { createSandbox, PAYLOAD_STYLES, type Sandbox } from "@reportkit/sandbox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { instantOf } from "./payloads.js";
import { type Running, serveReceiver } from "./servers.js";

const API_TOKEN = "sandbox-api-token";
// The webhook's secret (the bearer of every push) and its token (its verification's key).
const HOOK_SECRET = "webhook-secret-0123456789";
const VERIFICATION_TOKEN = "webhook-token-9876543210";

let sandbox: Sandbox;
let receiver: Running | undefined;

afterEach(async () => {
  await sandbox.close();
  await receiver?.close();
  receiver = undefined;
});

describe.each(PAYLOAD_STYLES)("payloads: %s", (payloads) => {
  beforeEach(async () => {
    sandbox = await createSandbox({ token: API_TOKEN, retryIntervalMs: 20, payloads });
  });

  describe("standard webhooks", () => {
    it("verifies the webhook, then delivers a DLR and a call report to typed handlers, times agreeing in Asia/Kolkata", async () => {
      const deliveries: DeliveryReport[] = [];
      const calls: CallReport[] = [];
      receiver = await serveReceiver(
        createReceiver({
          secret: HOOK_SECRET,
          verification: { token: VERIFICATION_TOKEN },
          timeZone: "Asia/Kolkata",
          onDelivery: (r) => {
            deliveries.push(r);
          },
          onCall: (r) => {
            calls.push(r);
          },
        }),
      );
      const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
      const hook = await client.webhooks.create({
        name: "e2e",
        uri: `${receiver.url}/reports`,
        secret: HOOK_SECRET,
        token: VERIFICATION_TOKEN,
      });
      // Created with a token, the webhook was sent its verification, and the receiver answered.
      const facts = await fetch(new URL(`sandbox/webhooks/${hook.id}`, sandbox.baseUrl), {
        headers: { authorization: `Bearer ${API_TOKEN}` },
      });
      expect(((await facts.json()) as { data: unknown }).data).toMatchObject({
        challenge: { sent: true, passed: true, status_code: 200 },
      });

      const sms = sandbox.sendSms({ webhookId: hook.id, custom: "order-77", status: "UNDELIV" });
      const call = sandbox.makeCall({ webhookId: hook.id, to: "919812345678" });
      expect(await sms.outcome).toBe("delivered");
      expect(await call.outcome).toBe("delivered");

      const [dlr] = deliveries;
      expect(dlr).toMatchObject({
        type: "delivery",
        id: sms.report.id,
        mobile: "919876543210",
        status: "UNDELIV",
        credits: "0.2500",
        units: 1,
        custom: "order-77",
      });
      // Documented: no unix fields, and no delivery time at all for an undelivered message.
      expect(sms.report.deliv_time === undefined).toBe(payloads === "documented");
      expect(sms.report.sent_at === undefined).toBe(payloads === "documented");
      expect(dlr?.deliveredAt?.getTime() ?? null).toBe(
        instantOf(sms.report.deliv_at, sms.report.deliv_time),
      );
      expect(dlr?.sentAt?.getTime()).toBe(instantOf(sms.report.sent_at, sms.report.sent_time));
      expect(dlr?.submittedAt?.getTime()).toBe(
        instantOf(sms.report.submit_at, sms.report.submit_time),
      );

      const [report] = calls;
      expect(report).toMatchObject({
        type: "call",
        // The documented call report has no webhook_id.
        webhookId: payloads === "complete" ? hook.id : null,
        mid: call.report.mid,
        to: "919812345678",
        from: "918068281235",
        bridge: "918068281234",
        duration: 23,
        flowId: 4521,
        status: "ANSWER",
        source: "OBD",
        recordingUrl: call.report.recording_url,
      });
      // Wall-clock end_at read in Asia/Kolkata is the instant the sandbox used.
      expect(report?.endedAt?.getTime()).toBeLessThanOrEqual(Date.now());
      expect(Date.now() - (report?.endedAt?.getTime() ?? 0)).toBeLessThan(60_000);
      expect((report?.endedAt?.getTime() ?? 0) - (report?.startedAt?.getTime() ?? 0)).toBe(23_000);
    });

    it("with every default, wall-clock times arrive as the real instants, without warnings", async () => {
      const deliveries: DeliveryReport[] = [];
      const calls: CallReport[] = [];
      // No timeZone on either side: both default to PROVIDER_TIME_ZONE.
      receiver = await serveReceiver(
        createReceiver({
          secret: HOOK_SECRET,
          onDelivery: (r) => {
            deliveries.push(r);
          },
          onCall: (r) => {
            calls.push(r);
          },
        }),
      );
      const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
      const hook = await client.webhooks.create({
        name: "z",
        uri: receiver.url,
        secret: HOOK_SECRET,
      });
      // Wall clocks have whole seconds: the instant is at or after the second this one is in.
      const before = Math.floor(Date.now() / 1000) * 1000;
      const call = sandbox.makeCall({ webhookId: hook.id, duration: 42 });
      const sms = sandbox.sendSms({ webhookId: hook.id });
      expect(await call.outcome).toBe("delivered");
      expect(await sms.outcome).toBe("delivered");
      const after = Date.now();

      const [report] = calls;
      const endedAt = report?.endedAt?.getTime() ?? 0;
      expect(endedAt).toBeGreaterThanOrEqual(before);
      expect(endedAt).toBeLessThanOrEqual(after);
      expect(endedAt - (report?.startedAt?.getTime() ?? 0)).toBe(42_000);
      expect(report?.warnings).toEqual([]);
      // Complete payloads carry unix fields and their wall-clock twins: each pair agrees.
      expect(deliveries[0]?.warnings).toEqual([]);
      expect(deliveries[0]?.deliveredAt?.getTime()).toBe(
        instantOf(sms.report.deliv_at, sms.report.deliv_time),
      );
      // The sandbox dates a message's sending a few seconds before its delivery.
      const sentAt = deliveries[0]?.sentAt?.getTime() ?? 0;
      expect(sentAt).toBeGreaterThanOrEqual(before - 60_000);
      expect(sentAt).toBeLessThanOrEqual(after);
    });

    it("a handler that fails the first time gets the report again on the retry", async () => {
      let calls = 0;
      const ids: string[] = [];
      receiver = await serveReceiver(
        createReceiver({
          secret: HOOK_SECRET,
          onDelivery: (r) => {
            calls++;
            if (calls === 1) throw new Error("database down");
            ids.push(r.id);
          },
        }),
      );
      const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
      const hook = await client.webhooks.create({
        name: "e",
        uri: receiver.url,
        secret: HOOK_SECRET,
      });
      const sms = sandbox.sendSms({ webhookId: hook.id });
      expect(await sms.outcome).toBe("delivered");
      expect(ids).toEqual([sms.report.id]);
      expect(sandbox.attempts().map((a) => [a.statusCode, a.outcome])).toEqual([
        [500, "retrying"],
        [200, "delivered"],
      ]);
    });

    it("a wrong secret is refused (401) on every attempt, then the report is dropped", async () => {
      const errors: string[] = [];
      receiver = await serveReceiver(
        createReceiver({
          secret: HOOK_SECRET,
          onDelivery: () => {},
          onError: (e: ReportkitError) => {
            errors.push(e.code);
          },
        }),
      );
      const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
      const hook = await client.webhooks.create({
        name: "e",
        uri: receiver.url,
        secret: "wrong-secret",
      });
      expect(await sandbox.sendSms({ webhookId: hook.id }).outcome).toBe("dropped");
      expect(errors).toEqual(["unauthorized", "unauthorized", "unauthorized", "unauthorized"]);
    });

    it("acknowledges a report of every status a real sender pushes, in this shape", async () => {
      // SMPP delivery-receipt states and Asterisk dial statuses (field-notes.md).
      const smsStatuses = ["DELIVRD", "UNDELIV", "EXPIRED", "REJECTD", "DELETED", "ACCEPTD"];
      const callStatuses = ["ANSWER", "BUSY", "NOANSWER", "CANCEL", "CONGESTION", "CHANUNAVAIL"];
      const deliveries: DeliveryReport[] = [];
      const calls: CallReport[] = [];
      receiver = await serveReceiver(
        createReceiver({
          secret: HOOK_SECRET,
          timeZone: "Asia/Kolkata",
          onDelivery: (r) => {
            deliveries.push(r);
          },
          onCall: (r) => {
            calls.push(r);
          },
        }),
      );
      const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
      const hook = await client.webhooks.create({
        name: "e",
        uri: receiver.url,
        secret: HOOK_SECRET,
      });
      const sent = [
        ...smsStatuses.map((status) => sandbox.sendSms({ webhookId: hook.id, status, units: 2 })),
        ...callStatuses.map((status) => sandbox.makeCall({ webhookId: hook.id, status })),
      ];
      expect(await Promise.all(sent.map((s) => s.outcome))).toEqual(sent.map(() => "delivered"));
      // Pushed concurrently: compared by status, not by arrival order.
      const undated = Object.fromEntries(deliveries.map((r) => [r.status, r.deliveredAt === null]));
      expect(undated).toEqual(
        Object.fromEntries(
          smsStatuses.map((status) => [status, payloads === "documented" && status !== "DELIVRD"]),
        ),
      );
      expect(calls.map((r) => r.status).sort()).toEqual([...callStatuses].sort());
      expect(sandbox.attempts().every((a) => a.attempt === 1)).toBe(true);
    });
  });

  describe("composed webhooks", () => {
    const cases: { name: string; template: ComposedTemplate }[] = [
      {
        name: "GET, values in the query",
        template: {
          type: "call" as const,
          method: "GET" as const,
          url: "/ack/receive?call_id={{id}}&to={{to}}&message_status={{status}}&duration={{duration}}",
        },
      },
      {
        name: "POST JSON with the customer's keys",
        template: {
          type: "call" as const,
          method: "POST" as const,
          url: "/ack/{{id}}",
          body: { to: "{{to}}", status: "{{status}}", duration: "{{duration}}" },
        },
      },
      {
        name: "PUT multipart form",
        template: {
          type: "call" as const,
          method: "PUT" as const,
          format: "form" as const,
          url: "/ack",
          body: {
            call_id: "{{id}}",
            to: "{{to}}",
            message_status: "{{status}}",
            duration: "{{duration}}",
          },
        },
      },
    ];

    it.each(cases)("call report, $name", async ({ template }) => {
      const calls: CallReport[] = [];
      receiver = await serveReceiver(
        createReceiver({
          secret: HOOK_SECRET,
          composed: template,
          onCall: (r) => {
            calls.push(r);
          },
        }),
      );
      const hook = sandbox.createComposedWebhook({
        name: "composed",
        ...template,
        url: `${receiver.url}${template.url}`,
        secret: HOOK_SECRET,
      });
      const call = sandbox.makeCall({ webhookId: hook.id, to: "14155550100" });
      expect(await call.outcome).toBe("delivered");
      expect(calls[0]).toMatchObject({
        type: "call",
        mid: call.report.mid,
        to: "14155550100",
        status: "ANSWER",
        duration: 23,
      });
    });

    it("delivery report, POST urlencoded form, read back by the template", async () => {
      const template = {
        type: "delivery" as const,
        format: "form" as const,
        url: "/dlr",
        body: { msg: "{{id}}", state: "{{status}}", at: "{{deliv_at}}", ref: "{{custom}}" },
      };
      const reports: DeliveryReport[] = [];
      receiver = await serveReceiver(
        createReceiver({
          secret: HOOK_SECRET,
          composed: template,
          onDelivery: (r) => {
            reports.push(r);
          },
        }),
      );
      const hook = sandbox.createComposedWebhook({
        name: "composed",
        ...template,
        format: "urlencoded",
        url: `${receiver.url}/dlr`,
        secret: HOOK_SECRET,
      });
      const sms = sandbox.sendSms({ webhookId: hook.id, custom: "c-9" });
      expect(await sms.outcome).toBe("delivered");
      expect(reports[0]).toMatchObject({ id: sms.report.id, status: "DELIVRD", custom: "c-9" });
      expect(reports[0]?.deliveredAt?.getTime()).toBe(
        instantOf(sms.report.deliv_at, sms.report.deliv_time),
      );
      // A composed webhook gets the unix variables in either shape.
      expect(sms.report.deliv_at).toMatch(/^\d{10}$/);
    });
  });
});
