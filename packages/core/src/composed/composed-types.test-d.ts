import { describe, expectTypeOf, it } from "vitest";
import {
  type CallStatus,
  createReceiver,
  type DeliveryStatus,
  type ReportWarning,
  type TemplateVariables,
} from "../index.js";

describe("handler types follow a literal composed template", () => {
  it("a call template: promised fields are non-null, others null", () => {
    createReceiver({
      secret: "t",
      composed: {
        type: "call",
        method: "GET",
        url: "https://example.com/ack/receive?call_id={{id}}&to={{to}}&message_status={{status}}",
      },
      onCall(report) {
        expectTypeOf(report.mid).toEqualTypeOf<string>();
        expectTypeOf(report.to).toEqualTypeOf<string>();
        expectTypeOf(report.status).toEqualTypeOf<CallStatus>();
        expectTypeOf(report.final).toEqualTypeOf<boolean>();
        expectTypeOf(report.outcome).toEqualTypeOf<"answered" | "unanswered" | "unknown">();
        expectTypeOf(report.duration).toEqualTypeOf<null>();
        expectTypeOf(report.from).toEqualTypeOf<null>();
        expectTypeOf(report.startedAt).toEqualTypeOf<null>();
        expectTypeOf(report.type).toEqualTypeOf<"call">();
        expectTypeOf(report.raw).toEqualTypeOf<Record<string, unknown>>();
        expectTypeOf(report.warnings).toEqualTypeOf<ReportWarning[]>();
      },
    });
  });

  it("body keys count too; a promised number or time stays nullable (the provider may send it empty)", () => {
    createReceiver({
      secret: "t",
      composed: {
        type: "delivery",
        method: "PUT",
        url: "https://example.com/dlr/{{id}}",
        body: { state: "{{status}}", at: "{{deliv_at}}", n: "{{units}}" },
        format: "form",
      },
      onDelivery(report) {
        expectTypeOf(report.id).toEqualTypeOf<string>();
        expectTypeOf(report.status).toEqualTypeOf<DeliveryStatus>();
        expectTypeOf(report.final).toEqualTypeOf<boolean>();
        expectTypeOf(report.outcome).toEqualTypeOf<
          "delivered" | "undelivered" | "pending" | "unknown"
        >();
        expectTypeOf(report.deliveredAt).toEqualTypeOf<Date | null>();
        expectTypeOf(report.units).toEqualTypeOf<number | null>();
        expectTypeOf(report.mobile).toEqualTypeOf<null>();
        expectTypeOf(report.sentAt).toEqualTypeOf<null>();
        expectTypeOf(report.credits).toEqualTypeOf<null>();
        expectTypeOf(report.cid).toEqualTypeOf<null>();
      },
    });
  });

  it("spaces inside the braces are the same variable, at run time and in the type", () => {
    createReceiver({
      secret: "t",
      composed: { type: "delivery", url: "/d?i={{ id }}&s={{status }}&m={{ mobile}}" },
      onDelivery(report) {
        expectTypeOf(report.mobile).toEqualTypeOf<string>();
        expectTypeOf(report.id).toEqualTypeOf<string>();
      },
    });
  });

  it("the provider's @{{name}} form is the same variable, and no variable carries the verification page's fields", () => {
    createReceiver({
      secret: "t",
      composed: {
        type: "delivery",
        url: "https://www.domain.com/ack/receive?id=@{{id}}",
        body: { mobile: "@{{mobile}}", message_status: "@{{status}}", credits: "@{{credits}}" },
      },
      onDelivery(report) {
        expectTypeOf(report.id).toEqualTypeOf<string>();
        expectTypeOf(report.mobile).toEqualTypeOf<string>();
        expectTypeOf(report.status).toEqualTypeOf<DeliveryStatus>();
        expectTypeOf(report.credits).toEqualTypeOf<string | null>();
        expectTypeOf(report.custom).toEqualTypeOf<null>();
        expectTypeOf(report.custom1).toEqualTypeOf<null>();
        expectTypeOf(report.custom2).toEqualTypeOf<null>();
        expectTypeOf(report.location).toEqualTypeOf<null>();
        expectTypeOf(report.region).toEqualTypeOf<null>();
        expectTypeOf(report.provider).toEqualTypeOf<null>();
        expectTypeOf(report.locationCode).toEqualTypeOf<null>();
        expectTypeOf(report.regionCode).toEqualTypeOf<null>();
        expectTypeOf(report.providerCode).toEqualTypeOf<null>();
      },
    });
    type Vars = TemplateVariables<{ type: "call"; url: "/c?call_id=@{{id}}&s=@{{ status }}" }>;
    expectTypeOf<Vars>().toEqualTypeOf<"id" | "status">();
  });

  it("a body that is not a literal gives the plain report types", () => {
    const body: Record<string, string> = { st: "{{status}}", m: "{{mobile}}" };
    createReceiver({
      secret: "t",
      composed: { type: "delivery", url: "/d/{{id}}", body },
      onDelivery(report) {
        expectTypeOf(report.mobile).toEqualTypeOf<string | null>();
        expectTypeOf(report.warnings).toEqualTypeOf<ReportWarning[]>();
        expectTypeOf(report.deliveredAt).toEqualTypeOf<Date | null>();
        expectTypeOf(report.custom).toEqualTypeOf<string | null>();
      },
    });
  });

  it("extracts the variables of a template", () => {
    type Vars = TemplateVariables<{
      type: "call";
      url: "/a/{{to}}?x={{status}}";
      body: { d: "{{duration}}" };
    }>;
    expectTypeOf<Vars>().toEqualTypeOf<"to" | "status" | "duration">();
  });

  it("a call template takes no onDelivery", () => {
    createReceiver({
      secret: "t",
      composed: { type: "call", url: "/c?s={{status}}&m={{mid}}" },
      onCall() {},
      // @ts-expect-error: a call template never delivers SMS reports
      onDelivery() {},
    });
  });

  it("takes a method in either case, the urlencoded format, headers and text around a query value", () => {
    createReceiver({
      secret: "t",
      composed: {
        type: "delivery",
        method: "post",
        url: "https://example.com/dlr?ref=dlr-{{id}}&s={{ status }}",
        body: { at: "{{sent_time}}" },
        format: "urlencoded",
        headers: { "x-api-key": "k" },
      },
      onDelivery(report) {
        expectTypeOf(report.id).toEqualTypeOf<string>();
        expectTypeOf(report.sentAt).toEqualTypeOf<Date | null>();
        expectTypeOf(report.mobile).toEqualTypeOf<null>();
      },
    });
    createReceiver({
      secret: "t",
      // @ts-expect-error: the methods are GET, POST and PUT
      composed: { type: "delivery", method: "PATCH", url: "/d?i={{id}}&s={{status}}" },
      onDelivery() {},
    });
  });

  it("without a template, the plain report types", () => {
    createReceiver({
      secret: "t",
      onDelivery(report) {
        expectTypeOf(report.deliveredAt).toEqualTypeOf<Date | null>();
        expectTypeOf(report.mobile).toEqualTypeOf<string | null>();
      },
    });
  });
});
