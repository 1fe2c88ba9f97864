import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import {
  type CallOutcome,
  type CallPayload,
  type CallReport,
  type CallReportSchema,
  type CallStatus,
  createReceiver,
  type DeliveryOutcome,
  type DeliveryPayload,
  type DeliveryReport,
  type DeliveryReportSchema,
  type DeliveryStatus,
  type ParseResult,
  parseReport,
  type Report,
  type ReportContext,
  type ReportWarning,
} from "./index.js";

describe("public types", () => {
  it("onDelivery receives a DeliveryReport and onCall a CallReport", () => {
    createReceiver({
      secret: "t",
      onDelivery(report, ctx) {
        expectTypeOf(report).toEqualTypeOf<DeliveryReport>();
        expectTypeOf(report.type).toEqualTypeOf<"delivery">();
        expectTypeOf(report.id).toEqualTypeOf<string>();
        expectTypeOf(report.mobile).toEqualTypeOf<string | null>();
        expectTypeOf(report.status).toEqualTypeOf<DeliveryStatus>();
        expectTypeOf(report.final).toEqualTypeOf<boolean>();
        expectTypeOf(report.outcome).toEqualTypeOf<
          "delivered" | "undelivered" | "pending" | "unknown"
        >();
        expectTypeOf(report.outcome).toEqualTypeOf<DeliveryOutcome>();
        expectTypeOf(report.credits).toEqualTypeOf<string | null>();
        expectTypeOf(report.units).toEqualTypeOf<number | null>();
        expectTypeOf(report.deliveredAt).toEqualTypeOf<Date | null>();
        expectTypeOf(report.sentAt).toEqualTypeOf<Date | null>();
        expectTypeOf(report.submittedAt).toEqualTypeOf<Date | null>();
        expectTypeOf(report.cid).toEqualTypeOf<string | null>();
        expectTypeOf(report.custom).toEqualTypeOf<string | null>();
        expectTypeOf(report.raw).toEqualTypeOf<Record<string, unknown>>();
        expectTypeOf(report.warnings).toEqualTypeOf<ReportWarning[]>();
        expectTypeOf<ReportWarning>().toEqualTypeOf<{ field: string; message: string }>();
        expectTypeOf(ctx).toEqualTypeOf<ReportContext>();
        expectTypeOf(ctx.receivedAt).toEqualTypeOf<Date>();
        expectTypeOf(ctx.headers).toEqualTypeOf<Headers>();
      },
      async onCall(report) {
        expectTypeOf(report).toEqualTypeOf<CallReport>();
        expectTypeOf(report.type).toEqualTypeOf<"call">();
        expectTypeOf(report.status).toEqualTypeOf<CallStatus>();
        expectTypeOf(report.final).toEqualTypeOf<boolean>();
        expectTypeOf(report.outcome).toEqualTypeOf<"answered" | "unanswered" | "unknown">();
        expectTypeOf(report.outcome).toEqualTypeOf<CallOutcome>();
        expectTypeOf(report.to).toEqualTypeOf<string | null>();
        expectTypeOf(report.from).toEqualTypeOf<string | null>();
        expectTypeOf(report.bridge).toEqualTypeOf<string | null>();
        expectTypeOf(report.startedAt).toEqualTypeOf<Date | null>();
        expectTypeOf(report.endedAt).toEqualTypeOf<Date | null>();
        expectTypeOf(report.duration).toEqualTypeOf<number | null>();
        expectTypeOf(report.flowId).toEqualTypeOf<number | null>();
        expectTypeOf(report.webhookId).toEqualTypeOf<string | null>();
        expectTypeOf(report.recordingUrl).toEqualTypeOf<string | null>();
        expectTypeOf(report.warnings).toEqualTypeOf<ReportWarning[]>();
      },
    });
  });

  it("the report schemas are the report types", () => {
    expectTypeOf<z.infer<typeof DeliveryReportSchema>>().toEqualTypeOf<DeliveryReport>();
    expectTypeOf<z.infer<typeof CallReportSchema>>().toEqualTypeOf<CallReport>();
  });

  it("statuses complete the known values and still take any string", () => {
    expectTypeOf<"DELIVRD">().toExtend<DeliveryStatus>();
    expectTypeOf<"ANSWER">().toExtend<CallStatus>();
    expectTypeOf<"SOMETHING_NEW">().toExtend<DeliveryStatus>();
    expectTypeOf<"DLT-TEMPLATE-MISMATCH">().toExtend<DeliveryStatus>();
    expectTypeOf<"AWAITING-DLR">().toExtend<DeliveryStatus>();
  });

  it("parseReport returns a discriminated result", () => {
    const result = parseReport({});
    expectTypeOf(result).toEqualTypeOf<ParseResult>();
    if (result.ok) {
      expectTypeOf(result.report).toEqualTypeOf<Report>();
      if (result.report.type === "call") expectTypeOf(result.report).toEqualTypeOf<CallReport>();
    } else {
      expectTypeOf(result.error.code).toEqualTypeOf<"unrecognized_report" | "invalid_report">();
    }
  });

  it("wire payload types accept numbers and strings where senders mix them", () => {
    expectTypeOf<{
      id: string;
      mobile: number;
      status: string;
      units: "1";
    }>().toExtend<DeliveryPayload>();
    expectTypeOf<{ status: string; to: number; duration: "23" }>().toExtend<CallPayload>();
  });

  it("requires a token or an explicit secret: false, and a handler", () => {
    // @ts-expect-error: onDelivery must be a function
    createReceiver({ secret: "t", onDelivery: 1 });
    // @ts-expect-error: `auth` is no option (`auth: false` is now `secret: false`)
    createReceiver({ auth: false, onDelivery() {} });
  });
});
