// @reportkit/testing's sendReport against every adapter, the way a user's own test suite
// would use it: Express (served on an ephemeral port), Fastify (inject), Hono (fetch),
// core's receiver (fetch), and a URL of a server really listening.
import { type CallReport, createReceiver, type DeliveryReport } from "@reportkit/core";
import { webhookReceiver as expressReceiver } from "@reportkit/express";
import { webhookReceiver as fastifyReceiver } from "@reportkit/fastify";
import { webhookReceiver as honoReceiver } from "@reportkit/hono";
import {
  callPayload,
  composedRequest,
  deliveryPayload,
  type ReportTarget,
  sendReport,
} from "@reportkit/testing";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SAMPLE_CALL_TEXT, SAMPLE_DLR_TEXT, TOKEN } from "../fixtures/samples.js";
import { cleanup, closeTargets, TARGETS } from "./targets.js";

afterEach(async () => {
  vi.unstubAllEnvs();
  await closeTargets();
});

function recorder() {
  const deliveries: DeliveryReport[] = [];
  const calls: CallReport[] = [];
  return {
    deliveries,
    calls,
    handlers: {
      onDelivery: (report: DeliveryReport) => {
        deliveries.push(report);
      },
      onCall: (report: CallReport) => {
        calls.push(report);
      },
    },
  };
}

describe.each(Object.entries(TARGETS))("sendReport to %s", (_name, build) => {
  it("a delivery report in each format the provider uses reaches onDelivery, answered 200", async () => {
    const { deliveries, handlers } = recorder();
    const target = await build({ secret: TOKEN, ...handlers });
    for (const format of ["json", "form", "urlencoded"] as const) {
      const payload = deliveryPayload({ status: "UNDELIV", custom: format });
      const reply = await sendReport(target, payload, { secret: TOKEN, format });
      expect(reply.status, format).toBe(200);
      expect(reply.json).toEqual({ ok: true });
      expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
      expect(deliveries.at(-1)).toMatchObject({
        id: payload.id,
        status: "UNDELIV",
        custom: format,
      });
    }
    expect(deliveries).toHaveLength(3);
  });

  it("a call report reaches onCall, phone numbers as digit strings", async () => {
    const { calls, handlers } = recorder();
    const target = await build({ secret: TOKEN, ...handlers });
    const payload = callPayload({ status: "BUSY" });
    expect((await sendReport(target, payload, { secret: TOKEN })).status).toBe(200);
    expect(calls).toEqual([
      expect.objectContaining({ mid: payload.mid, status: "BUSY", to: "919876543210" }),
    ]);
  });

  it("the documented samples as sent (trailing commas) are read", async () => {
    const { deliveries, calls, handlers } = recorder();
    const target = await build({ secret: TOKEN, ...handlers });
    expect((await sendReport(target, SAMPLE_DLR_TEXT, { secret: TOKEN })).status).toBe(200);
    expect((await sendReport(target, SAMPLE_CALL_TEXT, { secret: TOKEN })).status).toBe(200);
    expect(deliveries[0]?.id).toBe("b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1");
    expect(calls[0]?.duration).toBe(23);
  });

  it("no secret and a wrong one are refused with 401 and reportkit's error body", async () => {
    const { deliveries, handlers } = recorder();
    const target = await build({ secret: TOKEN, ...handlers });
    const none = await sendReport(target, deliveryPayload(), { secret: null });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="reportkit"');
    expect(none.json).toMatchObject({ ok: false, error: { code: "unauthorized" } });
    const wrong = await sendReport(target, deliveryPayload(), { secret: "not-the-token" });
    expect(wrong.status).toBe(401);
    expect(wrong.body).not.toContain("not-the-token");
    expect(deliveries).toHaveLength(0);
  });

  it("a handler that throws gets 500, so the provider would retry", async () => {
    const observed: string[] = [];
    const target = await build({
      secret: TOKEN,
      onDelivery: () => {
        throw new Error("database down");
      },
      onError: (error) => {
        observed.push(error.code);
      },
    });
    const reply = await sendReport(target, deliveryPayload(), { secret: TOKEN });
    expect(reply.status).toBe(500);
    expect(observed).toEqual(["handler_failed"]);
    expect(reply.json).toMatchObject({ error: { code: "handler_failed" } });
    expect(reply.body).not.toContain("database down");
  });

  it("a composed GET request, with its secret in a custom header, is read by the same template", async () => {
    const template = {
      type: "call",
      method: "GET",
      url: "https://example.com/webhooks?call_id={{id}}&to={{to}}&message_status={{status}}",
    } as const;
    const { calls, handlers } = recorder();
    const target = await build({
      composed: template,
      ...handlers,
      secret: { value: TOKEN, header: "x-api-key" },
    });
    const request = composedRequest(template, { to: "919800000001", status: "NOANSWER" });
    const reply = await sendReport(target, request, { secret: TOKEN, header: "x-api-key" });
    expect(reply.status).toBe(200);
    expect(calls[0]).toMatchObject({
      mid: request.values.id,
      to: "919800000001",
      status: "NOANSWER",
      duration: null,
    });
    const bearer = await sendReport(target, request, { secret: TOKEN });
    expect(bearer.status).toBe(401);
  });

  it("a composed multipart POST is read by the same template", async () => {
    const template = {
      type: "delivery",
      url: "https://example.com/webhooks",
      body: { msg_id: "{{id}}", state: "{{status}}", phone: "{{mobile}}" },
      format: "form",
    } as const;
    const { deliveries, handlers } = recorder();
    const target = await build({ secret: TOKEN, composed: template, ...handlers });
    const request = composedRequest(template, { status: "EXPIRED" });
    expect((await sendReport(target, request, { secret: TOKEN })).status).toBe(200);
    expect(deliveries[0]).toMatchObject({ id: request.values.id, status: "EXPIRED", cid: null });
  });
});

describe("sendReport with the zero-argument form of each adapter", () => {
  it("503 no_handler before a handler is attached, 200 after, on Express, Fastify and Hono", async () => {
    vi.stubEnv("REPORTKIT_SECRET", TOKEN);
    const express5 = express();
    const onExpress = expressReceiver();
    express5.use(onExpress);
    const fastify = Fastify();
    cleanup.push(() => fastify.close());
    await fastify.register(fastifyReceiver);
    const hono = new Hono();
    const onHono = honoReceiver();
    hono.post("/webhooks", onHono);

    const received: string[] = [];
    const attach = [
      () => onExpress.onDelivery((report) => void received.push(`express ${report.id}`)),
      () => fastify.reportkit.onDelivery((report) => void received.push(`fastify ${report.id}`)),
      () => onHono.onDelivery((report) => void received.push(`hono ${report.id}`)),
    ];
    const targets: ReportTarget[] = [express5, fastify, hono];
    for (const [i, target] of targets.entries()) {
      const early = await sendReport(target, deliveryPayload(), { secret: TOKEN });
      expect(early.status).toBe(503);
      expect(early.json).toMatchObject({ error: { code: "no_handler" } });
      attach[i]?.();
      const payload = deliveryPayload();
      expect((await sendReport(target, payload, { secret: TOKEN })).status).toBe(200);
      expect(received.at(-1)).toMatch(new RegExp(` ${payload.id}$`));
    }
    expect(received).toHaveLength(3);
  });
});

describe("sendReport's own checks", () => {
  it("sends to the path given for an app, and gives back a 404 that is not JSON as text", async () => {
    const app = express();
    app.use(expressReceiver({ path: "/hooks/dlr", secret: TOKEN, onDelivery() {} }));
    const found = await sendReport(app, deliveryPayload(), { secret: TOKEN, path: "/hooks/dlr" });
    expect(found.status).toBe(200);
    const missing = await sendReport(app, deliveryPayload(), { secret: TOKEN });
    expect(missing.status).toBe(404);
    expect(missing.json).toBeUndefined();
    expect(missing.body).toContain("/webhooks");
  });

  it("extra headers win over the defaults (here a content type the receiver refuses)", async () => {
    const receiver = createReceiver({ secret: TOKEN, onDelivery() {} });
    const reply = await sendReport(receiver, deliveryPayload(), {
      secret: TOKEN,
      headers: { "Content-Type": "application/xml" },
    });
    expect(reply.status).toBe(415);
  });

  it("says what is wrong with a target, a payload or a missing secret option", async () => {
    await expect(sendReport(42 as never, deliveryPayload(), { secret: TOKEN })).rejects.toThrow(
      "the target must be a URL, an Express app, a Fastify instance, a Hono app",
    );
    await expect(sendReport("http://127.0.0.1:9/", 7 as never, { secret: TOKEN })).rejects.toThrow(
      "the payload must be an object",
    );
    await expect(sendReport("http://127.0.0.1:9/", {}, {} as never)).rejects.toThrow(
      "give the webhook's secret to send",
    );
    await expect(
      sendReport("http://127.0.0.1:9/", {}, { secret: TOKEN, format: "xml" as never }),
    ).rejects.toThrow('format must be "json", "form" or "urlencoded"');
  });

  it("takes `token` as the old name of `secret`, and refuses both", async () => {
    const { deliveries, handlers } = recorder();
    const target = await TARGETS["core receiver"]?.({ secret: TOKEN, ...handlers });
    const reply = await sendReport(target as ReportTarget, deliveryPayload(), { token: TOKEN });
    expect(reply.status).toBe(200);
    expect(deliveries).toHaveLength(1);
    await expect(
      sendReport("http://127.0.0.1:9/", {}, { secret: TOKEN, token: TOKEN } as never),
    ).rejects.toThrow("give `secret` or `token` (its old name), not both");
  });
});
