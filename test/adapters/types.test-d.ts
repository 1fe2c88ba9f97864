import type { CallStatus, ErrorCode, ReportContext } from "@reportkit/core";
import {
  type CallReport,
  type DeliveryReport,
  webhookReceiver as expressReceiver,
} from "@reportkit/express";
import fastifyReceiver from "@reportkit/fastify";
import { webhookReceiver as honoReceiver } from "@reportkit/hono";
import express, { type RequestHandler } from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { describe, expectTypeOf, it } from "vitest";

describe("handler types in each adapter", () => {
  it("Express: typed reports, and a handler Express accepts wherever it takes one", () => {
    const handler = expressReceiver({
      path: "/webhooks",
      secret: "t",
      onDelivery(report, ctx) {
        expectTypeOf(report).toEqualTypeOf<DeliveryReport>();
        expectTypeOf(report.deliveredAt).toEqualTypeOf<Date | null>();
        expectTypeOf(report.units).toEqualTypeOf<number | null>();
        expectTypeOf(ctx).toEqualTypeOf<ReportContext>();
      },
      async onCall(report) {
        expectTypeOf(report).toEqualTypeOf<CallReport>();
        expectTypeOf(report.to).toEqualTypeOf<string | null>();
        expectTypeOf(report.startedAt).toEqualTypeOf<Date | null>();
      },
    });
    expectTypeOf(handler).toExtend<RequestHandler>();
    const app = express();
    app.use(handler);
    app.use("/webhooks", handler);
    app.post("/webhooks", handler);
    express.Router().use(handler);
  });

  it("Express: a composed template types the report by its placeholders", () => {
    expressReceiver({
      secret: "t",
      composed: {
        type: "call",
        method: "GET",
        url: "https://example.com/ack?call_id={{id}}&to={{to}}&message_status={{status}}",
      },
      onCall(report) {
        expectTypeOf(report.to).toEqualTypeOf<string>();
        expectTypeOf(report.status).toEqualTypeOf<CallStatus>();
        expectTypeOf(report.duration).toEqualTypeOf<null>();
      },
    });
  });

  it("Fastify: register() types the options, handlers included", async () => {
    const app = Fastify();
    await app.register(fastifyReceiver, {
      path: "/webhooks",
      prefix: "/api",
      secret: ["old", "new"],
      onDelivery(report, ctx) {
        expectTypeOf(report).toEqualTypeOf<DeliveryReport>();
        expectTypeOf(report.deliveredAt).toEqualTypeOf<Date | null>();
        expectTypeOf(ctx.headers).toEqualTypeOf<Headers>();
      },
      onCall(report) {
        expectTypeOf(report.duration).toEqualTypeOf<number | null>();
      },
    });
    await app.register(fastifyReceiver, {
      secret: "t",
      composed: { type: "call", method: "GET", url: "/ack?call_id={{id}}&to={{to}}" },
      onCall(report) {
        expectTypeOf(report.to).toEqualTypeOf<string | null>();
      },
    });
    // @ts-expect-error maxBodyBytes is a number of bytes
    await app.register(fastifyReceiver, { secret: "t", onCall() {}, body: { maxBytes: "1mb" } });
  });

  it("Hono: typed reports, and a handler for an app with its own Bindings", () => {
    const app = new Hono<{ Bindings: { REPORTKIT_SECRET: string; DB: object } }>();
    app.post(
      "/webhooks",
      honoReceiver({
        onDelivery(report) {
          expectTypeOf(report.deliveredAt).toEqualTypeOf<Date | null>();
          expectTypeOf(report.raw).toEqualTypeOf<Record<string, unknown>>();
        },
      }),
    );
    app.on(["GET", "POST", "PUT"], "/composed", honoReceiver({ secret: false, onCall() {} }));
    new Hono().post("/webhooks", honoReceiver({ onCall() {} }));
  });
});

describe("handlers attached after construction are typed as in the options form", () => {
  it("Express: webhookReceiver() then .onDelivery/.onCall/.onError, chainable, still a handler", () => {
    const handler = expressReceiver()
      .onDelivery((report, ctx) => {
        expectTypeOf(report).toEqualTypeOf<DeliveryReport>();
        expectTypeOf(ctx).toEqualTypeOf<ReportContext>();
        expectTypeOf(ctx.dedupeKey).toEqualTypeOf<string | undefined>();
      })
      .onCall(async (report) => {
        expectTypeOf(report).toEqualTypeOf<CallReport>();
      })
      .onError((error) => {
        expectTypeOf(error.code).toEqualTypeOf<ErrorCode>();
      });
    expectTypeOf(handler).toExtend<RequestHandler>();
    express().use(handler);
  });

  it("Express: a composed template in options types the attached handler", () => {
    expressReceiver({
      composed: {
        type: "call",
        method: "GET",
        url: "https://example.com/ack?call_id={{id}}&to={{to}}&message_status={{status}}",
      },
    }).onCall((report) => {
      expectTypeOf(report.to).toEqualTypeOf<string>();
      expectTypeOf(report.duration).toEqualTypeOf<null>();
    });
  });

  it("Hono: webhookReceiver() then .onDelivery(fn) is a route handler", () => {
    const app = new Hono();
    app.post(
      "/webhooks",
      honoReceiver().onDelivery((report) => {
        expectTypeOf(report).toEqualTypeOf<DeliveryReport>();
      }),
    );
  });

  it("Fastify: fastify.reportkit, by declaration merging", async () => {
    const app = Fastify();
    await app.register(fastifyReceiver);
    app.reportkit
      .onDelivery((report) => {
        expectTypeOf(report).toEqualTypeOf<DeliveryReport>();
      })
      .onCall((report) => {
        expectTypeOf(report).toEqualTypeOf<CallReport>();
      });
    // @ts-expect-error: a handler for the wrong report type
    app.reportkit.onDelivery((report: CallReport) => report.mid);
  });
});
