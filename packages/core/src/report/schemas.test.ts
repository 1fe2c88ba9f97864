// What a user may import from @reportkit/core besides the receiver: the zod schemas of the
// wire payloads and of the normalized reports, the status lists and ERROR_STATUS, each checked
// against data (the types are checked in index.test-d.ts and wire-payloads.test-d.ts).
import { readFileSync } from "node:fs";
import { CALL_FIELDS, DELIVERY_FIELDS } from "@reportkit/wire";
import { describe, expect, it } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR } from "../../../../test/fixtures/samples.js";
import {
  CALL_STATUSES,
  CallPayloadSchema,
  CallReportSchema,
  DELIVERY_STATUSES,
  DeliveryPayloadSchema,
  DeliveryReportSchema,
  ERROR_STATUS,
  type ErrorCode,
  parseReport,
  type Report,
  ReportkitError,
  ReportWarningSchema,
} from "../index.js";

function parsed(payload: Record<string, unknown>): Report {
  const result = parseReport(payload);
  if (!result.ok) throw new Error(`refused: ${result.error.message}`);
  return result.report;
}

/** The zod issues of a failed parse as "path: message" lines. */
function issuesOf(result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) {
  expect(result.success).toBe(false);
  return (result.error?.issues ?? []).map((issue) => issue.path.join("."));
}

describe("DeliveryPayloadSchema and CallPayloadSchema: the wire payloads", () => {
  it("read the documented samples as they are, unknown keys kept", () => {
    expect(DeliveryPayloadSchema.parse(SAMPLE_DLR)).toEqual(SAMPLE_DLR);
    expect(CallPayloadSchema.parse(SAMPLE_CALL)).toEqual(SAMPLE_CALL);
    const extra = { ...SAMPLE_DLR, operator: "Jio" };
    expect(DeliveryPayloadSchema.parse(extra)).toEqual(extra);
  });

  it("know every wire field of @reportkit/wire, and nothing else", () => {
    expect(Object.keys(DeliveryPayloadSchema.shape).sort()).toEqual([...DELIVERY_FIELDS].sort());
    expect(Object.keys(CallPayloadSchema.shape).sort()).toEqual([...CALL_FIELDS].sort());
  });

  it("take a string or a number where senders send either", () => {
    const numbers = { ...SAMPLE_DLR, id: 17, mobile: 919876543210, credits: 2, units: "1" };
    expect(DeliveryPayloadSchema.safeParse(numbers).success).toBe(true);
    const call = { ...SAMPLE_CALL, duration: 23, from: "918068281235", flow_id: "4521" };
    expect(CallPayloadSchema.safeParse(call).success).toBe(true);
  });

  it("refuse a payload without its identity fields, naming them", () => {
    const { id: _id, status: _status, ...anonymous } = SAMPLE_DLR;
    expect(issuesOf(DeliveryPayloadSchema.safeParse(anonymous))).toEqual(["id", "status"]);
    const { status: _callStatus, ...noStatus } = SAMPLE_CALL;
    expect(issuesOf(CallPayloadSchema.safeParse(noStatus))).toEqual(["status"]);
    expect(issuesOf(DeliveryPayloadSchema.safeParse({ ...SAMPLE_DLR, units: [1] }))).toEqual([
      "units",
    ]);
  });
});

describe("DeliveryReportSchema, CallReportSchema and ReportWarningSchema: what handlers get", () => {
  it("accept what parseReport makes of the documented samples", () => {
    const delivery = parsed(SAMPLE_DLR);
    const call = parsed(SAMPLE_CALL);
    expect(DeliveryReportSchema.parse(delivery)).toEqual(delivery);
    expect(CallReportSchema.parse(call)).toEqual(call);
    expect(DeliveryReportSchema.safeParse(call).success).toBe(false);
    expect(CallReportSchema.safeParse(delivery).success).toBe(false);
  });

  it("accept the warning parseReport gives for an unreadable value", () => {
    const report = parsed({ ...SAMPLE_DLR, units: "three" });
    expect(report.warnings).toHaveLength(1);
    expect(ReportWarningSchema.parse(report.warnings[0])).toEqual({
      field: "units",
      message: 'expected a whole number, got "three"; set to null, the value is kept in raw',
    });
    expect(DeliveryReportSchema.safeParse(report).success).toBe(true);
    expect(issuesOf(ReportWarningSchema.safeParse({ field: "units" }))).toEqual(["message"]);
  });

  it("hold the receiver's guarantees: identity never empty, plain decimals, whole counts, valid dates", () => {
    const delivery = parsed(SAMPLE_DLR);
    expect(
      issuesOf(
        DeliveryReportSchema.safeParse({
          ...delivery,
          id: "",
          credits: "1e+21",
          units: 1.5,
          deliveredAt: new Date(Number.NaN),
        }),
      ).sort(),
    ).toEqual(["credits", "deliveredAt", "id", "units"]);
    expect(issuesOf(DeliveryReportSchema.safeParse({ ...delivery, credits: "2.0" }))).toEqual([
      "credits",
    ]);
    const call = parsed(SAMPLE_CALL);
    expect(
      issuesOf(CallReportSchema.safeParse({ ...call, status: "", duration: -1 })).sort(),
    ).toEqual(["duration", "status"]);
  });
});

describe("DELIVERY_STATUSES and CALL_STATUSES", () => {
  it("list the field notes' and SMPP's delivery statuses and Asterisk DIALSTATUS values", () => {
    expect(DELIVERY_STATUSES).toEqual([
      "DELIVRD",
      "AWAITING-DLR",
      "ENROUTE",
      "ACCEPTD",
      "SNDR-BLOCK",
      "TEMPLATE-NOT-FOUND",
      "INV-TEMPLATE",
      "INV-SENDER",
      "DLT-REJECTED",
      "DLT-INV-TMID",
      "DLT-INV-ENTITY",
      "DLT-INV-TM-ID",
      "DLT-TM-VAR-EXECEED",
      "DLT-ENTITY-NOT-FOUND",
      "DLT-TM-BLACKLST",
      "DLT-ENTITY-BLACKLST",
      "DLT-HEADER-INACTIVE",
      "DLT-TM-INACTIVE",
      "DLT-SENDER-NOT-REG-TM",
      "INV-PEID",
      "INV-TMID",
      "INV-ENTITY",
      "INVALID-SUB",
      "ABSENT-SUB",
      "HANDSET-ERR",
      "BARRED",
      "MEMEXEC",
      "MOB-OFF",
      "HANDSET-BUSY",
      "SERIES-BLK",
      "SERIES-BLOCK",
      "INV-NUMBER",
      "NET-ERR",
      "FAILED",
      "UNDELIV",
      "SERVER-ERR",
      "REJECTED",
      "REJ-MULTIPART",
      "REJECTD",
      "DELETED",
      "DNDNUMB",
      "BLACKLST",
      "NOT-OPTIN",
      "OPTOUT-REJ",
      "PROMO-TMOUT",
      "NO-CREDITS",
      "NO-ACCOUNT",
      "NOTALLOWED",
      "THROTTLED",
      "INV-PROVISION",
      "INV-SERVICE",
      "INV-SCHEDULE",
      "SPAM",
      "DUPLICATE",
      "EXPIRED",
      "TIMEOUT-DLR",
      "UNKNOWN",
    ]);
    expect(CALL_STATUSES).toEqual([
      "ANSWER",
      "BUSY",
      "NOANSWER",
      "CANCEL",
      "CONGESTION",
      "CHANUNAVAIL",
      "RECEIVED",
      "MISSED",
      "COMPLETED",
    ]);
  });

  it("each reaches the handler as sent, and so does a status outside the lists", () => {
    const deliveries = [...DELIVERY_STATUSES, "DLT-HEADER", "QUEUED"].map((status) =>
      parsed({ ...SAMPLE_DLR, status }),
    );
    expect(deliveries.map((r) => r.status)).toEqual([...DELIVERY_STATUSES, "DLT-HEADER", "QUEUED"]);
    const calls = [...CALL_STATUSES, "TORTURE"].map((status) => parsed({ ...SAMPLE_CALL, status }));
    expect(calls.map((r) => r.status)).toEqual([...CALL_STATUSES, "TORTURE"]);
  });
});

describe("ERROR_STATUS", () => {
  const codes = Object.keys(ERROR_STATUS) as ErrorCode[];

  it("gives each code the status its ReportkitError carries", () => {
    expect(codes).toHaveLength(20);
    for (const code of codes) {
      const error = new ReportkitError(code, "m");
      expect([code, error.status, error.code]).toEqual([code, ERROR_STATUS[code], code]);
    }
  });

  it("answers only statuses the provider retries: 4xx for the sender's request, 5xx for failures", () => {
    const byStatus: Record<number, string[]> = {};
    for (const code of codes) {
      byStatus[ERROR_STATUS[code]] = [...(byStatus[ERROR_STATUS[code]] ?? []), code];
    }
    expect(byStatus).toEqual({
      400: [
        "invalid_json",
        "unrecognized_report",
        "invalid_report",
        "invalid_form",
        "body_read_failed",
      ],
      401: ["unauthorized"],
      405: ["method_not_allowed"],
      408: ["request_timeout"],
      409: ["in_progress"],
      413: ["payload_too_large"],
      415: ["unsupported_media_type"],
      500: ["handler_failed", "secret_check_failed", "internal_error"],
      503: [
        "no_handler",
        "handler_timeout",
        "parked",
        "dedupe_unavailable",
        "queue_unavailable",
        "shutting_down",
      ],
    });
  });

  it("matches the README's reply table, code by code", () => {
    const readme = readFileSync(new URL("../../../../README.md", import.meta.url), "utf8");
    const table = readme.slice(
      readme.indexOf("## Replies"),
      readme.indexOf("\n## ", readme.indexOf("## Replies") + 1),
    );
    const documented = new Map<string, Set<number>>();
    for (const row of table.split("\n").filter((line) => line.startsWith("| "))) {
      const cells = row.split(" | ");
      const code = /^`(\w+)`/.exec(cells.at(-1) ?? "")?.[1];
      const status = /^(\d{3})\b/.exec(cells.at(-2) ?? "")?.[1];
      if (code === undefined || status === undefined) continue;
      documented.set(code, (documented.get(code) ?? new Set()).add(Number(status)));
    }
    expect(Object.fromEntries([...documented].map(([code, s]) => [code, [...s]]))).toEqual(
      Object.fromEntries(codes.map((code) => [code, [ERROR_STATUS[code]]])),
    );
  });
});
