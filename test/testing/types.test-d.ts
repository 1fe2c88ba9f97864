import { createReceiver } from "@reportkit/core";
import {
  callPayload,
  click2CallPayload,
  composedRequest,
  contactUpdatePayload,
  deliveryPayload,
  eventPayload,
  linkVisitPayload,
  type ReportTarget,
  type SentReport,
  sendReport,
  unsubscribePayload,
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

  it("the other kinds' payloads are typed from wire, overrides as given", () => {
    const c2c = click2CallPayload({ to: "flow:220" });
    expectTypeOf(c2c.to).toEqualTypeOf<"flow:220">();
    expectTypeOf(c2c.billing).toEqualTypeOf<string>();
    expectTypeOf(c2c.hangup_by).toEqualTypeOf<string>();
    expectTypeOf(unsubscribePayload().id).toEqualTypeOf<string>();
    expectTypeOf(unsubscribePayload({ id: 436 }).id).toEqualTypeOf<436>();
    // @ts-expect-error: the number that opted out is text or a number
    unsubscribePayload({ receiver: [] });
    expectTypeOf(eventPayload().event).toEqualTypeOf<string>();
    expectTypeOf(eventPayload().payload.read_at).toEqualTypeOf<string | null>();
    expectTypeOf(
      eventPayload("rcs:message:status", { status: "read" }).payload.status,
    ).toEqualTypeOf<"read">();
    expectTypeOf(eventPayload("vmn:message:in").payload.message.type).toEqualTypeOf<string>();
    expectTypeOf(eventPayload("telegram:message:edit").payload.id).toEqualTypeOf<string>();
    expectTypeOf(contactUpdatePayload().id).toEqualTypeOf<number>();
    expectTypeOf(contactUpdatePayload({ company: undefined })).not.toHaveProperty("company");
    expectTypeOf(linkVisitPayload({ link_id: 7 }).link_id).toEqualTypeOf<7>();
    expectTypeOf(sendReport(express(), eventPayload(), { secret: "t" })).toEqualTypeOf<
      Promise<SentReport>
    >();
  });
});
