import { createReceiver } from "@reportkit/core";
import {
  callPayload,
  composedRequest,
  deliveryPayload,
  type ReportTarget,
  type SentReport,
  sendReport,
} from "@reportkit/testing";
import express from "express";
import express4 from "express4";
import Fastify from "fastify";
import { Hono } from "hono";
import { describe, expectTypeOf, it } from "vitest";

describe("@reportkit/testing types", () => {
  it("takes an Express 5 or 4 app, a Fastify instance, a Hono app, a receiver or a URL", () => {
    expectTypeOf(express()).toExtend<ReportTarget>();
    expectTypeOf(express4()).toExtend<ReportTarget>();
    expectTypeOf(Fastify()).toExtend<ReportTarget>();
    expectTypeOf(new Hono()).toExtend<ReportTarget>();
    expectTypeOf(new Hono<{ Bindings: { REPORTKIT_SECRET: string } }>()).toExtend<ReportTarget>();
    expectTypeOf(createReceiver({ secret: "t", onDelivery() {} })).toExtend<ReportTarget>();
    expectTypeOf("http://127.0.0.1:3000/webhooks").toExtend<ReportTarget>();
    expectTypeOf(new URL("http://127.0.0.1:3000/webhooks")).toExtend<ReportTarget>();
    expectTypeOf(42).not.toExtend<ReportTarget>();
    expectTypeOf(sendReport(express(), deliveryPayload(), { secret: "t" })).toEqualTypeOf<
      Promise<SentReport>
    >();
    // @ts-expect-error: the secret option is required (null sends none)
    sendReport(express(), deliveryPayload(), {});
  });

  it("payloads keep their documented types, overrides theirs, and undefined removes a key", () => {
    const dlr = deliveryPayload({ status: "UNDELIV", units: "2", cid: undefined });
    expectTypeOf(dlr.id).toEqualTypeOf<string>();
    expectTypeOf(dlr.status).toEqualTypeOf<"UNDELIV">();
    expectTypeOf(dlr.units).toEqualTypeOf<"2">();
    expectTypeOf(dlr).not.toHaveProperty("cid");
    // The verification page's extra fields: in the sample as strings, overridable, removable.
    expectTypeOf(deliveryPayload().custom1).toEqualTypeOf<string>();
    expectTypeOf(deliveryPayload().provider_code).toEqualTypeOf<string>();
    const extra = deliveryPayload({ location: "Nepal", region_code: undefined });
    expectTypeOf(extra.location).toEqualTypeOf<"Nepal">();
    expectTypeOf(extra).not.toHaveProperty("region_code");
    // @ts-expect-error: like every wire field, a string or a number, not an object
    deliveryPayload({ custom2: { a: 1 } });
    const call = callPayload();
    expectTypeOf(call.to).toEqualTypeOf<number>();
    expectTypeOf(call.duration).toEqualTypeOf<string>();
    // @ts-expect-error: a wire field takes what the receiver reads (string or number), not a boolean
    deliveryPayload({ mobile: true });
  });

  it("composed values are the template type's variables", () => {
    const call = { type: "call", url: "https://x/c?s={{status}}" } as const;
    composedRequest(call, { status: "BUSY", flow_id: 7, webhook_id: "w" });
    // @ts-expect-error: deliv_at is a delivery variable
    composedRequest(call, { deliv_at: "1" });
  });
});
