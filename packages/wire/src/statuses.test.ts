// The status vocabulary, row by row: every status the provider documents (v2/sms/smpp.md's DLR
// table with its codes, help/smart-delivery.md's DLT names, v2/voice/index.md's call statuses)
// and those of the field notes, with the finality, outcome, reason and transient flag decided
// for each; the DLT-* rule, statuses in any case, and statuses nobody knows.
import { describe, expect, it } from "vitest";
import {
  DOC_CALL_STATUS_TABLE,
  DOC_SMART_DELIVERY_STEP,
  DOC_SMPP_STATUS_TABLE,
} from "../../../test/fixtures/provider-statuses.js";
import {
  CALL_OUTCOMES,
  CALL_STATUS_TABLE,
  CALL_STATUSES,
  classifyCallStatus,
  classifyDeliveryStatus,
  DELIVERY_OUTCOMES,
  DELIVERY_REASONS,
  DELIVERY_STATUS_TABLE,
  DELIVERY_STATUSES,
  DLT_REJECTION,
  statusKey,
} from "./index.js";

type Decision = readonly [
  final: boolean,
  outcome: string,
  reason: string | null,
  transient: boolean,
];
const TRANSIENT = true;
const undelivered = (reason: string, transient = false): Decision => [
  true,
  "undelivered",
  reason,
  transient,
];

// What was decided for each status (written out here, not read from the table under test).
const DELIVERY_DECISIONS: Record<string, Decision> = {
  DELIVRD: [true, "delivered", null, false],
  "AWAITING-DLR": [false, "pending", null, false],
  ENROUTE: [false, "pending", null, false],
  ACCEPTD: [false, "pending", null, false],
  "SNDR-BLOCK": undelivered("dlt"),
  "TEMPLATE-NOT-FOUND": undelivered("dlt"),
  "INV-TEMPLATE": undelivered("dlt"),
  "INV-SENDER": undelivered("dlt"),
  "DLT-REJECTED": undelivered("dlt"),
  "DLT-INV-TMID": undelivered("dlt"),
  "DLT-INV-ENTITY": undelivered("dlt"),
  "DLT-INV-TM-ID": undelivered("dlt"),
  "DLT-TM-VAR-EXECEED": undelivered("dlt"),
  "DLT-ENTITY-NOT-FOUND": undelivered("dlt"),
  "DLT-TM-BLACKLST": undelivered("dlt"),
  "DLT-ENTITY-BLACKLST": undelivered("dlt"),
  "DLT-HEADER-INACTIVE": undelivered("dlt"),
  "DLT-TM-INACTIVE": undelivered("dlt"),
  "DLT-SENDER-NOT-REG-TM": undelivered("dlt"),
  "INV-PEID": undelivered("dlt"),
  "INV-TMID": undelivered("dlt"),
  "INV-ENTITY": undelivered("dlt"),
  "INVALID-SUB": undelivered("handset"),
  "ABSENT-SUB": undelivered("handset", TRANSIENT),
  "HANDSET-ERR": undelivered("handset"),
  BARRED: undelivered("handset"),
  MEMEXEC: undelivered("handset", TRANSIENT),
  "MOB-OFF": undelivered("handset", TRANSIENT),
  "HANDSET-BUSY": undelivered("handset", TRANSIENT),
  "SERIES-BLK": undelivered("handset"),
  "SERIES-BLOCK": undelivered("handset"),
  "INV-NUMBER": undelivered("handset"),
  "NET-ERR": undelivered("network", TRANSIENT),
  FAILED: undelivered("network", TRANSIENT),
  UNDELIV: undelivered("network"),
  "SERVER-ERR": undelivered("network", TRANSIENT),
  REJECTED: undelivered("network"),
  "REJ-MULTIPART": undelivered("network", TRANSIENT),
  REJECTD: undelivered("network"),
  DELETED: undelivered("network"),
  DNDNUMB: undelivered("recipient"),
  BLACKLST: undelivered("recipient"),
  "NOT-OPTIN": undelivered("recipient"),
  "OPTOUT-REJ": undelivered("recipient"),
  "PROMO-TMOUT": undelivered("recipient", TRANSIENT),
  "NO-CREDITS": undelivered("account", TRANSIENT),
  "NO-ACCOUNT": undelivered("account"),
  NOTALLOWED: undelivered("account"),
  THROTTLED: undelivered("account", TRANSIENT),
  "INV-PROVISION": undelivered("account"),
  "INV-SERVICE": undelivered("account"),
  "INV-SCHEDULE": undelivered("account"),
  SPAM: undelivered("content"),
  DUPLICATE: undelivered("content"),
  EXPIRED: undelivered("expired", TRANSIENT),
  "TIMEOUT-DLR": [true, "unknown", "unknown", false],
  UNKNOWN: [true, "unknown", "unknown", false],
};
const CALL_DECISIONS: Record<string, Decision> = {
  ANSWER: [true, "answered", null, false],
  BUSY: [true, "unanswered", null, TRANSIENT],
  NOANSWER: [true, "unanswered", null, TRANSIENT],
  CANCEL: [true, "unanswered", null, false],
  CONGESTION: [true, "unanswered", null, false],
  CHANUNAVAIL: [true, "unanswered", null, TRANSIENT],
  RECEIVED: [true, "unanswered", null, false],
  MISSED: [true, "unanswered", null, false],
  COMPLETED: [true, "answered", null, false],
};

/** The rows of a markdown table of the provider's pages, cells trimmed, header and rule left out. */
function pageRows(table: string): string[][] {
  return table
    .trim()
    .split("\n")
    .slice(2)
    .map((line) =>
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

describe("the delivery status table", () => {
  it("has every status decided here, and no other", () => {
    expect([...DELIVERY_STATUSES].sort()).toEqual(Object.keys(DELIVERY_DECISIONS).sort());
  });

  it.each(Object.entries(DELIVERY_DECISIONS))(
    "%s: final, outcome, reason and transient as decided",
    (status, [final, outcome, reason, transient]) => {
      const found = classifyDeliveryStatus(status);
      expect(found).toMatchObject({ known: true, final, outcome, reason, transient });
      const row = DELIVERY_STATUS_TABLE[status as keyof typeof DELIVERY_STATUS_TABLE];
      expect(found.meaning).toBe(row.meaning);
      expect(found.codes).toEqual(row.codes);
      // One line, a sentence.
      expect(found.meaning).toMatch(/^[A-Z].{10,110}\.$/);
    },
  );

  it("has every status of v2/sms/smpp.md's table, final, each code with the provider's description", () => {
    const rows = pageRows(DOC_SMPP_STATUS_TABLE);
    expect(rows).toHaveLength(67);
    const onPage = rows.map(([code, status, description]) => ({ code, status, description }));
    const inTable = Object.entries(DELIVERY_STATUS_TABLE).flatMap(([status, row]) =>
      row.codes.map(({ code, description }) => ({ code, status, description })),
    );
    // Both ways, code by code: nothing of the page missing, nothing added that it does not say.
    const byCode = (a: { code?: string }, b: { code?: string }) =>
      String(a.code).localeCompare(String(b.code));
    expect([...inTable].sort(byCode)).toEqual([...onPage].sort(byCode));
    const statuses = new Set(onPage.map((row) => row.status as string));
    expect(statuses.size).toBe(47);
    for (const status of statuses) {
      expect(classifyDeliveryStatus(status), status).toMatchObject({ known: true, final: true });
    }
  });

  it("has help/smart-delivery.md's DLT rejection names as DLT rejections", () => {
    const named = /like \(([^)]+)\)/.exec(DOC_SMART_DELIVERY_STEP)?.[1]?.split(/, | and /) ?? [];
    expect(named).toEqual(["DLT-REJECTED", "INV-PEID", "INV-TMID", "INV-ENTITY", "INV-TEMPLATE"]);
    for (const status of named) {
      expect(classifyDeliveryStatus(status), status).toMatchObject({
        known: true,
        final: true,
        outcome: "undelivered",
        reason: "dlt",
        transient: false,
      });
    }
  });

  it("takes every other status starting with DLT- as a final DLT rejection, in any case", () => {
    for (const status of ["DLT-TEMPLATE-MISMATCH", "DLT-HEADER", "dlt-entity", "Dlt-x"]) {
      expect(classifyDeliveryStatus(status)).toEqual({
        known: true,
        final: true,
        outcome: "undelivered",
        reason: "dlt",
        transient: false,
        meaning: DLT_REJECTION.meaning,
        codes: [],
      });
    }
    // A listed one keeps its own row (its code and meaning).
    expect(classifyDeliveryStatus("dlt-tm-inactive").codes).toEqual([
      { code: "788", description: "Template is Inactive" },
    ]);
    // The prefix alone, or something merely like it, is not a DLT rejection.
    for (const status of ["DLT-", "DLT", "DLTX", "XDLT-HEADER"]) {
      expect(classifyDeliveryStatus(status)).toMatchObject({ known: false });
    }
  });

  it("finds a status in any case and with spaces around it", () => {
    expect(classifyDeliveryStatus("delivrd")).toMatchObject({ known: true, outcome: "delivered" });
    expect(classifyDeliveryStatus("Awaiting-Dlr")).toMatchObject({ known: true, final: false });
    expect(classifyDeliveryStatus(" handset-busy ")).toMatchObject({
      outcome: "undelivered",
      reason: "handset",
      transient: true,
    });
    expect(statusKey(" timeout-dlr ")).toBe("TIMEOUT-DLR");
  });

  it("takes a status it does not know as not final, outcome and reason unknown, never refused", () => {
    for (const status of [
      "QUEUED",
      "SENT",
      "DELIVERED",
      "",
      "constructor",
      "__proto__",
      "hasOwnProperty",
    ]) {
      expect(classifyDeliveryStatus(status)).toEqual({
        known: false,
        final: false,
        outcome: "unknown",
        reason: "unknown",
        transient: false,
        meaning: "Not in reportkit's table of statuses: taken as not final, outcome unknown.",
        codes: [],
      });
    }
  });

  it("answers with frozen rows: one report's handler cannot change another's", () => {
    const found = classifyDeliveryStatus("INVALID-SUB");
    expect(Object.isFrozen(found)).toBe(true);
    expect(Object.isFrozen(found.codes)).toBe(true);
    expect(found.codes.every((code) => Object.isFrozen(code))).toBe(true);
    expect(Object.isFrozen(classifyDeliveryStatus("NEW-ONE"))).toBe(true);
    expect(Object.isFrozen(classifyCallStatus("NEW-ONE").codes)).toBe(true);
  });

  it("lists in DELIVERY_OUTCOMES and DELIVERY_REASONS exactly what the table and its rules give", () => {
    const rows = [
      ...Object.values(DELIVERY_STATUS_TABLE),
      DLT_REJECTION,
      classifyDeliveryStatus("NEVER-SEEN"),
    ];
    const outcomes = new Set(rows.map((row) => row.outcome));
    expect([...outcomes].sort()).toEqual([...DELIVERY_OUTCOMES].sort());
    const reasons = new Set(rows.map((row) => row.reason).filter((reason) => reason !== null));
    // In the table's order: the order the docs list them in.
    expect([...reasons]).toEqual([...DELIVERY_REASONS]);
  });

  it("gives a reason exactly to the failures: null for delivered and pending", () => {
    for (const status of DELIVERY_STATUSES) {
      const { outcome, reason, transient } = classifyDeliveryStatus(status);
      const failed = outcome === "undelivered" || outcome === "unknown";
      expect(reason === null, status).toBe(!failed);
      if (!failed) expect(transient, status).toBe(false);
    }
  });
});

describe("the call status table", () => {
  it("has every status of v2/voice/index.md, and no other", () => {
    const onPage = pageRows(DOC_CALL_STATUS_TABLE).map(([name]) => name);
    expect([...CALL_STATUSES]).toEqual(onPage);
    expect([...CALL_STATUSES].sort()).toEqual(Object.keys(CALL_DECISIONS).sort());
  });

  it.each(Object.entries(CALL_DECISIONS))(
    "%s: final, outcome and transient as decided, no reason",
    (status, [final, outcome, reason, transient]) => {
      const found = classifyCallStatus(status);
      expect(found).toMatchObject({ known: true, final, outcome, reason, transient, codes: [] });
      expect(classifyCallStatus(status.toLowerCase())).toMatchObject({ known: true, outcome });
      expect(found.meaning).toBe(
        CALL_STATUS_TABLE[status as keyof typeof CALL_STATUS_TABLE].meaning,
      );
      expect(found.meaning).toMatch(/^[A-Z].{10,110}\.$/);
    },
  );

  it("takes a call status it does not know as not final, outcome unknown, no reason", () => {
    expect(classifyCallStatus("FAILED")).toEqual({
      known: false,
      final: false,
      outcome: "unknown",
      reason: null,
      transient: false,
      meaning: "Not in reportkit's table of statuses: taken as not final, outcome unknown.",
      codes: [],
    });
    // A delivery status is no call status.
    expect(classifyCallStatus("DELIVRD")).toMatchObject({ known: false });
  });

  it("lists in CALL_OUTCOMES exactly the outcomes the table and its rule give", () => {
    const given = new Set([
      ...Object.values(CALL_STATUS_TABLE).map((row) => row.outcome),
      classifyCallStatus("NEVER-SEEN").outcome,
    ]);
    expect([...given].sort()).toEqual([...CALL_OUTCOMES].sort());
  });
});
