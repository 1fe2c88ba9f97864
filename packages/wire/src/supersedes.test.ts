// The rule that orders a message's statuses, as a pure function: each of its six rules, and
// what follows from them over every pair of the table (test/postgres checks the SQL agrees).
import { describe, expect, it } from "vitest";
import {
  classifyDeliveryStatus,
  DELIVERY_STATUSES,
  isStatusConflict,
  REPORT_TIME_LEAD_MS,
  type StatusPoint,
  supersedes,
} from "./index.js";

const T0 = Date.parse("2021-04-09T10:00:00Z");
const minutes = (n: number) => new Date(T0 + n * 60_000);

/** A status as a store keeps it: classified by the table, reported and received at minutes. */
function point(status: string, reported: number | null, received = reported ?? 0): StatusPoint {
  const { final, outcome } = classifyDeliveryStatus(status);
  return {
    status,
    final,
    outcome,
    reportedAt: reported === null ? null : minutes(reported),
    receivedAt: minutes(received),
  };
}

describe("supersedes", () => {
  it("1: records a message's first status", () => {
    expect(supersedes(point("ENROUTE", 1), null)).toBe(true);
    expect(supersedes(point("NEW-THING", null), null)).toBe(true);
  });

  it("2: the same status again (in any case) changes nothing", () => {
    expect(supersedes(point("DELIVRD", 5), point("DELIVRD", 1))).toBe(false);
    expect(supersedes(point("enroute", 5), point("ENROUTE", 1))).toBe(false);
  });

  it("3: a final replaces a non-final, never the reverse, whatever the times", () => {
    expect(supersedes(point("DELIVRD", 1), point("ENROUTE", 5))).toBe(true);
    expect(supersedes(point("ENROUTE", 1), point("DELIVRD", 5))).toBe(false);
    // The case: DELIVRD at 10:00, the retried ENROUTE at 10:30.
    expect(supersedes(point("ENROUTE", null, 30), point("DELIVRD", 0))).toBe(false);
    expect(supersedes(point("AWAITING-DLR", 50), point("UNDELIV", 0))).toBe(false);
    expect(supersedes(point("SOMETHING-NEW", 50), point("EXPIRED", 0))).toBe(false);
    expect(supersedes(point("TIMEOUT-DLR", 1), point("SOMETHING-NEW", 5))).toBe(true);
  });

  it("4: between two non-finals, the later by the reports' own time, else by arrival", () => {
    expect(supersedes(point("AWAITING-DLR", 2), point("ENROUTE", 1))).toBe(true);
    expect(supersedes(point("ENROUTE", 1), point("AWAITING-DLR", 2))).toBe(false);
    // Reported earlier, though it arrived later: the report's own time decides.
    expect(supersedes(point("ENROUTE", 1, 40), point("AWAITING-DLR", 2, 3))).toBe(false);
    // One without its own time: arrival decides.
    expect(supersedes(point("ENROUTE", null, 40), point("AWAITING-DLR", 2, 3))).toBe(true);
    expect(supersedes(point("ENROUTE", 9, 1), point("AWAITING-DLR", null, 3))).toBe(false);
    // A tie changes nothing.
    expect(supersedes(point("ACCEPTD", 2), point("ENROUTE", 2))).toBe(false);
  });

  it("5: a final that knows the outcome replaces a final that does not, never the reverse", () => {
    expect(supersedes(point("DELIVRD", 1), point("TIMEOUT-DLR", 5))).toBe(true);
    expect(supersedes(point("UNDELIV", 1), point("UNKNOWN", 5))).toBe(true);
    expect(supersedes(point("TIMEOUT-DLR", 9), point("DELIVRD", 1))).toBe(false);
    expect(supersedes(point("TIMEOUT-DLR", 9), point("DELIVRD", 1), "latest")).toBe(false);
  });

  it("6: two different finals: the first stays, or the later one with precedence latest", () => {
    expect(supersedes(point("UNDELIV", 5), point("DELIVRD", 1))).toBe(false);
    expect(supersedes(point("UNDELIV", 5), point("DELIVRD", 1), "first")).toBe(false);
    expect(supersedes(point("UNDELIV", 5), point("DELIVRD", 1), "latest")).toBe(true);
    expect(supersedes(point("UNDELIV", 1), point("DELIVRD", 5), "latest")).toBe(false);
    expect(supersedes(point("UNKNOWN", 5), point("TIMEOUT-DLR", 1))).toBe(false);
    expect(supersedes(point("UNKNOWN", 5), point("TIMEOUT-DLR", 1), "latest")).toBe(true);
  });

  it("believes a report's own time at most REPORT_TIME_LEAD_MS past its arrival: a forged 9999-12-31 cannot pin a status", () => {
    const forged = { ...point("UNDELIV", 0, 30), reportedAt: new Date("9999-12-31T00:00:00Z") };
    // Taken (latest): as if dated 30 + 5 minutes, not the year 9999.
    expect(supersedes(forged, point("DELIVRD", 10), "latest")).toBe(true);
    // So a real report dated after that replaces it, as one dated before does not.
    expect(supersedes(point("DELIVRD", 36, 36), forged, "latest")).toBe(true);
    expect(supersedes(point("DELIVRD", 34, 40), forged, "latest")).toBe(false);
    // The same between two non-finals (rule 4).
    const early = { ...point("ENROUTE", 0, 1), reportedAt: new Date("9999-12-31T00:00:00Z") };
    expect(supersedes(point("ACCEPTD", 7, 7), early)).toBe(true);
    // Within the lead a report's own time is believed as it is: a clock a little ahead.
    const ahead = REPORT_TIME_LEAD_MS / 60_000;
    expect(supersedes(point("ACCEPTD", ahead + 0.5, 1), point("ENROUTE", ahead, 2))).toBe(true);
  });

  it("never lets a non-final replace a final, for every pair of the table", () => {
    const statuses = [...DELIVERY_STATUSES, "DLT-HEADER", "SOMETHING-NEW"];
    for (const current of statuses) {
      for (const next of statuses) {
        for (const precedence of ["first", "latest"] as const) {
          const applied = supersedes(point(next, 9), point(current, 1), precedence);
          const c = classifyDeliveryStatus(current);
          const n = classifyDeliveryStatus(next);
          if (c.final && !n.final) expect(applied, `${next} over ${current}`).toBe(false);
          if (!c.final && n.final) expect(applied, `${next} over ${current}`).toBe(true);
        }
      }
    }
  });

  it("ends at the same status whichever order a non-final and a final arrive in", () => {
    const pending = ["ENROUTE", "ACCEPTD", "AWAITING-DLR", "SOMETHING-NEW"];
    const finals = [...DELIVERY_STATUSES, "DLT-HEADER"].filter(
      (s) => classifyDeliveryStatus(s).final,
    );
    for (const p of pending) {
      for (const f of finals) {
        // Arrived p then f, or f then p (times as reported, arrival swapped).
        const inOrder = supersedes(point(f, 2, 2), point(p, 1, 1)) ? f : p;
        const reversed = supersedes(point(p, 1, 2), point(f, 2, 1)) ? p : f;
        expect([inOrder, reversed]).toEqual([f, f]);
      }
    }
  });
});

describe("a point stored before its status joined the table", () => {
  // What an older reportkit gave for HANDSET-BUSY: not in its table, so not final, outcome unknown.
  const stale = (status: string): StatusPoint => ({
    status,
    final: false,
    outcome: "unknown",
    reportedAt: minutes(1),
    receivedAt: minutes(1),
  });

  it("is judged as the table reads its status now: a late intermediate never replaces it", () => {
    for (const status of ["HANDSET-BUSY", "INV-TEMPLATE", "ABSENT-SUB", "THROTTLED"]) {
      for (const late of ["AWAITING-DLR", "ENROUTE", "SOMETHING-NEW"]) {
        expect(supersedes(point(late, 9), stale(status)), `${late} over ${status}`).toBe(false);
      }
      // A different final is a conflict now (the first stays), not a final over a non-final.
      expect(supersedes(point("DELIVRD", 9), stale(status))).toBe(false);
      expect(isStatusConflict(point("DELIVRD", 9), stale(status))).toBe(true);
    }
  });

  it("keeps the point's own finality for a status the table does not know", () => {
    expect(supersedes(point("ENROUTE", 9), stale("SOMETHING-NEW"))).toBe(true);
    const storedFinal = { ...stale("SOMETHING-NEW"), final: true, outcome: "undelivered" };
    expect(supersedes(point("ENROUTE", 9), storedFinal)).toBe(false);
    expect(isStatusConflict(point("DELIVRD", 9), storedFinal)).toBe(true);
  });
});

describe("isStatusConflict", () => {
  it("is two different finals that both know the outcome", () => {
    expect(isStatusConflict(point("UNDELIV", 2), point("DELIVRD", 1))).toBe(true);
    expect(isStatusConflict(point("EXPIRED", 2), point("UNDELIV", 1))).toBe(true);
    expect(isStatusConflict(point("DLT-HEADER", 2), point("DELIVRD", 1))).toBe(true);
  });

  it("is not a repeat, a non-final, a final after unknown, or a first status", () => {
    expect(isStatusConflict(point("DELIVRD", 2), point("delivrd", 1))).toBe(false);
    expect(isStatusConflict(point("ENROUTE", 2), point("DELIVRD", 1))).toBe(false);
    expect(isStatusConflict(point("DELIVRD", 2), point("ENROUTE", 1))).toBe(false);
    expect(isStatusConflict(point("DELIVRD", 2), point("TIMEOUT-DLR", 1))).toBe(false);
    expect(isStatusConflict(point("UNKNOWN", 2), point("TIMEOUT-DLR", 1))).toBe(false);
    expect(isStatusConflict(point("DELIVRD", 2), null)).toBe(false);
  });
});
