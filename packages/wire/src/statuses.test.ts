// The status vocabulary, row by row: every status of the field notes with the finality and
// outcome decided for it, the DLT-* rule, statuses in any case, and statuses nobody knows.
import { describe, expect, it } from "vitest";
import {
  CALL_OUTCOMES,
  CALL_STATUS_TABLE,
  CALL_STATUSES,
  classifyCallStatus,
  classifyDeliveryStatus,
  DELIVERY_OUTCOMES,
  DELIVERY_STATUS_TABLE,
  DELIVERY_STATUSES,
  DLT_REJECTION,
  statusKey,
} from "./index.js";

// What was decided for each status (written out here, not read from the table under test).
const DELIVERY_DECISIONS: Record<string, [final: boolean, outcome: string]> = {
  DELIVRD: [true, "delivered"],
  UNDELIV: [true, "undelivered"],
  EXPIRED: [true, "undelivered"],
  REJECTD: [true, "undelivered"],
  FAILED: [true, "undelivered"],
  BARRED: [true, "undelivered"],
  BLACKLST: [true, "undelivered"],
  "INVALID-SUB": [true, "undelivered"],
  "MOB-OFF": [true, "undelivered"],
  "NET-ERR": [true, "undelivered"],
  "REJ-MULTIPART": [true, "undelivered"],
  DNDNUMB: [true, "undelivered"],
  DELETED: [true, "undelivered"],
  "TIMEOUT-DLR": [true, "unknown"],
  UNKNOWN: [true, "unknown"],
  "AWAITING-DLR": [false, "pending"],
  ENROUTE: [false, "pending"],
  ACCEPTD: [false, "pending"],
};
const CALL_DECISIONS: Record<string, [final: boolean, outcome: string]> = {
  ANSWER: [true, "answered"],
  BUSY: [true, "unanswered"],
  NOANSWER: [true, "unanswered"],
  CANCEL: [true, "unanswered"],
  CONGESTION: [true, "unanswered"],
  CHANUNAVAIL: [true, "unanswered"],
};

describe("the delivery status table", () => {
  it("has every status of the field notes (DLT-* aside), and no other", () => {
    expect([...DELIVERY_STATUSES].sort()).toEqual(Object.keys(DELIVERY_DECISIONS).sort());
  });

  it.each(Object.entries(DELIVERY_DECISIONS))(
    "%s: final and outcome as decided",
    (status, [final, outcome]) => {
      const found = classifyDeliveryStatus(status);
      expect(found).toMatchObject({ known: true, final, outcome });
      expect(found.meaning).toBe(
        DELIVERY_STATUS_TABLE[status as keyof typeof DELIVERY_STATUS_TABLE].meaning,
      );
      // One line, a sentence.
      expect(found.meaning).toMatch(/^[A-Z].{10,110}\.$/);
    },
  );

  it("takes every status starting with DLT- as a final rejection, in any case", () => {
    for (const status of ["DLT-TEMPLATE-MISMATCH", "DLT-HEADER", "dlt-entity", "Dlt-x"]) {
      expect(classifyDeliveryStatus(status)).toEqual({
        known: true,
        final: true,
        outcome: "undelivered",
        meaning: DLT_REJECTION.meaning,
        reason: "dlt",
        transient: false,
      });
    }
    // The prefix alone, or something merely like it, is not a DLT rejection.
    for (const status of ["DLT-", "DLT", "DLTX", "XDLT-HEADER"]) {
      expect(classifyDeliveryStatus(status)).toMatchObject({ known: false });
    }
  });

  it("finds a status in any case and with spaces around it", () => {
    expect(classifyDeliveryStatus("delivrd")).toMatchObject({ known: true, outcome: "delivered" });
    expect(classifyDeliveryStatus("Awaiting-Dlr")).toMatchObject({ known: true, final: false });
    expect(classifyDeliveryStatus(" mob-off ")).toMatchObject({ outcome: "undelivered" });
    expect(statusKey(" timeout-dlr ")).toBe("TIMEOUT-DLR");
  });

  it("takes a status it does not know as not final, outcome unknown, never refused", () => {
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
        meaning: "Not in reportkit's table of statuses: taken as not final, outcome unknown.",
        reason: "unknown",
        transient: false,
      });
    }
  });

  it("lists in DELIVERY_OUTCOMES exactly the outcomes the table and its rules give", () => {
    const given = new Set([
      ...Object.values(DELIVERY_STATUS_TABLE).map((row) => row.outcome),
      DLT_REJECTION.outcome,
      classifyDeliveryStatus("NEVER-SEEN").outcome,
    ]);
    expect([...given].sort()).toEqual([...DELIVERY_OUTCOMES].sort());
  });
});

describe("the call status table", () => {
  it("has the DIALSTATUS values of the field notes, each final", () => {
    expect([...CALL_STATUSES].sort()).toEqual(Object.keys(CALL_DECISIONS).sort());
  });

  it.each(Object.entries(CALL_DECISIONS))(
    "%s: final and outcome as decided",
    (status, [final, outcome]) => {
      expect(classifyCallStatus(status)).toMatchObject({ known: true, final, outcome });
      expect(classifyCallStatus(status.toLowerCase())).toMatchObject({ known: true, outcome });
      expect(classifyCallStatus(status).meaning).toBe(
        CALL_STATUS_TABLE[status as keyof typeof CALL_STATUS_TABLE].meaning,
      );
    },
  );

  it("takes a call status it does not know as not final, outcome unknown", () => {
    expect(classifyCallStatus("FAILED")).toMatchObject({
      known: false,
      final: false,
      outcome: "unknown",
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
