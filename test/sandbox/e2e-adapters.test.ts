// Sandbox → each adapter (Express, Fastify, Hono on node-server) → typed handler, over real
// sockets: a standard webhook whose first push fails and is retried, and a composed GET, with
// the reports in both shapes the sandbox pushes (documented, complete).
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createClient } from "@reportkit/client";
import type { CallReport, ComposedTemplate, DeliveryReport } from "@reportkit/core";
import { webhookReceiver as expressReceiver } from "@reportkit/express";
import { webhookReceiver as fastifyReceiver } from "@reportkit/fastify";
import { webhookReceiver as honoReceiver } from "@reportkit/hono";
import { createSandbox, PAYLOAD_STYLES, type Sandbox } from "@reportkit/sandbox";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { instantOf } from "./payloads.js";
import { type Running, stop } from "./servers.js";

const API_TOKEN = "sandbox-api-token";
// The webhook's secret (the bearer of every push) and its token (its verification's key).
const HOOK_SECRET = "adapter-secret-0123456789";
const VERIFICATION_TOKEN = "adapter-token-9876543210";

interface Handlers {
  onDelivery?: (report: DeliveryReport) => void;
  onCall?: (report: CallReport) => void;
}

/** Starts an app with the adapter at /webhooks; resolves with its base URL. */
type Host = (options: Handlers & { composed?: ComposedTemplate }) => Promise<Running>;

const hosts: Record<string, Host> = {
  express: async (options) => {
    const app = express();
    app.use(
      expressReceiver({
        path: "/webhooks",
        secret: HOOK_SECRET,
        verification: { token: VERIFICATION_TOKEN },
        timeZone: "Asia/Kolkata",
        ...options,
      }),
    );
    const server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => stop(server),
    };
  },
  fastify: async (options) => {
    const app = Fastify();
    await app.register(fastifyReceiver, {
      path: "/webhooks",
      secret: HOOK_SECRET,
      verification: { token: VERIFICATION_TOKEN },
      timeZone: "Asia/Kolkata",
      ...options,
    });
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    return { url, close: () => app.close() };
  },
  hono: async (options) => {
    const app = new Hono();
    const handler = honoReceiver({
      secret: HOOK_SECRET,
      verification: { token: VERIFICATION_TOKEN },
      timeZone: "Asia/Kolkata",
      ...options,
    });
    app.on(["GET", "POST", "PUT"], "/webhooks", handler);
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  },
};

let sandbox: Sandbox;
let app: Running | undefined;

afterEach(async () => {
  await sandbox.close();
  await app?.close();
  app = undefined;
});

describe.each(PAYLOAD_STYLES)("payloads: %s", (payloads) => {
  beforeEach(async () => {
    sandbox = await createSandbox({ token: API_TOKEN, retryIntervalMs: 20, payloads });
  });

  describe.each(Object.keys(hosts))("sandbox → @reportkit/%s", (name) => {
    const host = hosts[name] as Host;

    it("verifies the webhook, then delivers a DLR (after a failed first attempt) and a call report to typed handlers", async () => {
      const deliveries: DeliveryReport[] = [];
      const calls: CallReport[] = [];
      let failed = false;
      app = await host({
        onDelivery: (report) => {
          if (!failed) {
            failed = true;
            throw new Error("first attempt fails");
          }
          deliveries.push(report);
        },
        onCall: (report) => {
          calls.push(report);
        },
      });
      const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
      const hook = await client.webhooks.create({
        name,
        uri: `${app.url}/webhooks`,
        secret: HOOK_SECRET,
        token: VERIFICATION_TOKEN,
      });
      // Created with a token, the webhook was sent the verification request: answered.
      const facts = await fetch(new URL(`sandbox/webhooks/${hook.id}`, sandbox.baseUrl), {
        headers: { authorization: `Bearer ${API_TOKEN}` },
      });
      expect(((await facts.json()) as { data: unknown }).data).toMatchObject({
        challenge: { sent: true, passed: true, status_code: 200 },
      });
      const sms = sandbox.sendSms({ webhookId: hook.id, custom: "order-5" });
      const call = sandbox.makeCall({ webhookId: hook.id });
      expect(await sms.outcome).toBe("delivered");
      expect(await call.outcome).toBe("delivered");

      expect(deliveries).toHaveLength(1);
      expect(deliveries[0]).toMatchObject({
        type: "delivery",
        id: sms.report.id,
        status: "DELIVRD",
        custom: "order-5",
      });
      expect(deliveries[0]?.deliveredAt?.getTime()).toBe(
        instantOf(sms.report.deliv_at, sms.report.deliv_time),
      );
      expect(calls[0]).toMatchObject({
        type: "call",
        mid: call.report.mid,
        webhookId: payloads === "complete" ? hook.id : null,
        to: "919876543210",
        duration: 23,
      });
      expect(
        sandbox
          .attempts()
          .filter((a) => a.reportType === "delivery")
          .map((a) => [a.attempt, a.statusCode, a.outcome]),
      ).toEqual([
        [1, 500, "retrying"],
        [2, 200, "delivered"],
      ]);
    });

    it("reads a composed GET call report by its template", async () => {
      const template = {
        type: "call",
        method: "GET",
        url: "/webhooks?call_id={{id}}&to={{to}}&message_status={{status}}&duration={{duration}}",
      } as const;
      const calls: CallReport[] = [];
      app = await host({
        composed: template,
        onCall: (report) => {
          calls.push(report);
        },
      });
      const hook = sandbox.createComposedWebhook({
        name,
        ...template,
        url: `${app.url}${template.url}`,
        secret: HOOK_SECRET,
      });
      const call = sandbox.makeCall({ webhookId: hook.id, to: "14155550100", duration: 61 });
      expect(await call.outcome).toBe("delivered");
      expect(calls[0]).toMatchObject({
        mid: call.report.mid,
        to: "14155550100",
        status: "ANSWER",
        duration: 61,
      });
    });
  });
});
