// Every report says whether its status is final and what it means for the message or the call:
// standard pushes and composed webhooks alike, from @reportkit/wire's status table; a status the
// table does not know is taken with a warning on the report, never refused.
import {
  CALL_STATUSES,
  classifyCallStatus,
  classifyDeliveryStatus,
  DELIVERY_STATUSES,
} from "@reportkit/wire";
import { describe, expect, it } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR, TOKEN } from "../../../../test/fixtures/samples.js";
import { createReceiver } from "../receiver/create-receiver.js";
import { parseReport } from "./parse-report.js";
import { reportFromJson } from "./report-json.js";
import type { CallReport, DeliveryReport, Report } from "./schemas.js";

function parsed(payload: unknown): Report {
  const result = parseReport(payload);
  if (!result.ok) throw new Error(`expected a report: ${result.error.message}`);
  return result.report;
}

const AUTH = { authorization: `Bearer ${TOKEN}` };

describe("report.final and report.outcome", () => {
  it("come from the table for every delivery status, and no warning is added", () => {
    for (const status of [...DELIVERY_STATUSES, "DLT-TEMPLATE-MISMATCH"]) {
      const report = parsed({ ...SAMPLE_DLR, status });
      const { final, outcome } = classifyDeliveryStatus(status);
      expect(report, status).toMatchObject({ status, final, outcome, warnings: [] });
    }
  });

  it("come from the table for every call status", () => {
    for (const status of CALL_STATUSES) {
      const report = parsed({ ...SAMPLE_CALL, status });
      expect(report, status).toMatchObject({ status, final: true, warnings: [] });
      if (report.type !== "call") throw new Error("a call report was expected");
      expect(report.outcome).toBe(
        status === "ANSWER" || status === "COMPLETED" ? "answered" : "unanswered",
      );
      expect(report.outcome).toBe(classifyCallStatus(status).outcome);
    }
  });

  it("reads a status in any case and keeps it as sent", () => {
    expect(parsed({ ...SAMPLE_DLR, status: "delivrd" })).toMatchObject({
      status: "delivrd",
      final: true,
      outcome: "delivered",
      warnings: [],
    });
    expect(parsed({ ...SAMPLE_DLR, status: "Enroute" })).toMatchObject({
      status: "Enroute",
      final: false,
      outcome: "pending",
    });
    expect(parsed({ ...SAMPLE_CALL, status: "busy" })).toMatchObject({
      status: "busy",
      outcome: "unanswered",
    });
  });

  it("takes a status the table does not know, not final, outcome unknown, with a warning", () => {
    const delivery = parsed({ ...SAMPLE_DLR, status: "QUEUED" });
    expect(delivery).toMatchObject({ status: "QUEUED", final: false, outcome: "unknown" });
    expect(delivery.warnings).toEqual([
      {
        field: "status",
        message:
          '"QUEUED" is not a status of the SMS delivery report that reportkit knows; taken as sent, as not final with outcome "unknown"',
      },
    ]);
    const call = parsed({ ...SAMPLE_CALL, status: 42 });
    expect(call).toMatchObject({ status: "42", final: false, outcome: "unknown" });
    expect(call.warnings).toEqual([
      {
        field: "status",
        message:
          '"42" is not a status of the call report that reportkit knows; taken as sent, as not final with outcome "unknown"',
      },
    ]);
  });

  it("reach the handler of a standard push, an unknown status answered 200 like any other", async () => {
    const seen: DeliveryReport[] = [];
    const receiver = createReceiver({
      secret: TOKEN,
      dedupe: false,
      logger: false,
      onDelivery: (report) => {
        seen.push(report);
      },
    });
    for (const status of ["ENROUTE", "DELIVRD", "NEW-STATUS"]) {
      const res = await receiver.handle({
        method: "POST",
        url: "/webhooks",
        headers: { ...AUTH, "content-type": "application/json" },
        body: JSON.stringify({ ...SAMPLE_DLR, status }),
      });
      expect(res.status, status).toBe(200);
    }
    expect(seen.map(({ status, final, outcome }) => [status, final, outcome])).toEqual([
      ["ENROUTE", false, "pending"],
      ["DELIVRD", true, "delivered"],
      ["NEW-STATUS", false, "unknown"],
    ]);
    expect(seen[2]?.warnings.map((w) => w.field)).toEqual(["status"]);
  });

  it("are on composed delivery and call reports too", async () => {
    const deliveries: DeliveryReport[] = [];
    const dlr = createReceiver({
      secret: TOKEN,
      dedupe: false,
      composed: { type: "delivery", method: "GET", url: "/dlr?ref={{id}}&state={{status}}" },
      onDelivery: (report) => {
        deliveries.push(report);
      },
    });
    for (const state of ["AWAITING-DLR", "dlt-header", "SOMETHING"]) {
      const res = await dlr.handle({
        method: "GET",
        url: `/dlr?ref=m-1&state=${state}`,
        headers: AUTH,
      });
      expect(res.status, state).toBe(200);
    }
    expect(deliveries.map(({ status, final, outcome }) => [status, final, outcome])).toEqual([
      ["AWAITING-DLR", false, "pending"],
      ["dlt-header", true, "undelivered"],
      ["SOMETHING", false, "unknown"],
    ]);
    expect(deliveries[2]?.warnings).toEqual([
      expect.objectContaining({ field: "status", message: expect.stringContaining('"SOMETHING"') }),
    ]);

    const calls: CallReport[] = [];
    const call = createReceiver({
      secret: TOKEN,
      dedupe: false,
      composed: {
        type: "call",
        method: "GET",
        url: "/ack?call_id={{id}}&message_status={{status}}",
      },
      onCall: (report) => {
        calls.push(report);
      },
    });
    const res = await call.handle({
      method: "GET",
      url: "/ack?call_id=c-1&message_status=NOANSWER",
      headers: AUTH,
    });
    expect(res.status).toBe(200);
    expect(calls).toEqual([
      expect.objectContaining({ status: "NOANSWER", final: true, outcome: "unanswered" }),
    ]);
  });
});

describe("reportFromJson and final/outcome", () => {
  it("keeps them through JSON, and derives them for a report serialised without them", () => {
    const report = parsed({ ...SAMPLE_DLR, status: "ENROUTE" });
    const json = JSON.parse(JSON.stringify(report)) as Record<string, unknown>;
    expect(reportFromJson(json)).toEqual(report);
    const { final: _final, outcome: _outcome, ...older } = json;
    expect(reportFromJson(older)).toEqual(report);
    const call = JSON.parse(JSON.stringify(parsed(SAMPLE_CALL))) as Record<string, unknown>;
    const { final: _f, outcome: _o, ...olderCall } = call;
    expect(reportFromJson(olderCall)).toMatchObject({ final: true, outcome: "answered" });
  });

  it("refuses an outcome that is not one of the table's", () => {
    const json = JSON.parse(JSON.stringify(parsed(SAMPLE_DLR))) as Record<string, unknown>;
    expect(() => reportFromJson({ ...json, outcome: "maybe" })).toThrow(/at `outcome`/);
    expect(() => reportFromJson({ ...json, final: "yes" })).toThrow(/at `final`/);
  });
});
