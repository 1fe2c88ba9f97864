import { parseReport } from "@reportkit/core";
import {
  DOCUMENTED_CLICK2CALL_SAMPLE,
  DOCUMENTED_CONTACT_UPDATE_SAMPLE,
  DOCUMENTED_LINK_VISIT_SAMPLE,
  DOCUMENTED_MESSAGE_IN_SAMPLE,
  DOCUMENTED_MESSAGE_STATUS_SAMPLE,
  DOCUMENTED_UNSUBSCRIBE_SAMPLE,
} from "@reportkit/wire";
import { describe, expect, it } from "vitest";
import {
  contactUpdatePayload,
  eventPayload,
  linkVisitPayload,
  unsubscribePayload,
} from "./event-payloads.js";
import { click2CallPayload } from "./payloads.js";

describe("the other kinds' payloads", () => {
  it.each<[string, () => object, object, string]>([
    ["click2CallPayload", () => click2CallPayload(), DOCUMENTED_CLICK2CALL_SAMPLE, "call"],
    [
      "unsubscribePayload",
      () => unsubscribePayload(),
      DOCUMENTED_UNSUBSCRIBE_SAMPLE,
      "unsubscribe",
    ],
    [
      "contactUpdatePayload",
      () => contactUpdatePayload(),
      DOCUMENTED_CONTACT_UPDATE_SAMPLE,
      "event",
    ],
    ["linkVisitPayload", () => linkVisitPayload(), DOCUMENTED_LINK_VISIT_SAMPLE, "event"],
  ])(
    "%s has the page's fields, is read as its kind without a warning, fresh each call",
    (_name, make, sample, kind) => {
      const first = make();
      const second = make();
      expect(Object.keys(first)).toEqual(Object.keys(sample));
      const parsed = parseReport(first);
      expect(parsed.ok && [parsed.report.type, parsed.report.warnings]).toEqual([kind, []]);
      expect(second).not.toEqual(first);
    },
  );

  it("eventPayload: a message status's or an inbound message's sample for the event's channel, else just an id", () => {
    const status = eventPayload();
    expect(status.event).toBe("whatsapp:message:status");
    expect(Object.keys(status.payload)).toEqual(
      Object.keys(DOCUMENTED_MESSAGE_STATUS_SAMPLE.payload),
    );
    expect(status.payload.id).not.toBe(eventPayload().payload.id);
    const viber = eventPayload("viber:message:status", { status: "failed", foreign_id: undefined });
    expect(viber.payload).toMatchObject({ channel: "viber", status: "failed" });
    expect(viber.payload).not.toHaveProperty("foreign_id");
    const inbound = eventPayload("rcs:message:in");
    expect(inbound.payload.channels).toEqual([{ name: "rcs", to: "919019123456" }]);
    // The sample itself is never changed.
    expect(DOCUMENTED_MESSAGE_IN_SAMPLE.payload.channels[0]?.name).toBe("vmn");
    expect(Object.keys(eventPayload("telegram:message:edit").payload)).toEqual(["id"]);
    for (const envelope of [status, viber, inbound]) {
      const parsed = parseReport(envelope);
      expect(parsed.ok && [parsed.report.type, parsed.report.warnings]).toEqual(["event", []]);
    }
  });

  it("click2CallPayload: dated now, each a second after the one before, start_at its duration before the end", () => {
    const before = Math.floor(Date.now() / 1000);
    const a = click2CallPayload();
    const b = click2CallPayload();
    expect(Number(a.unixtime)).toBeGreaterThanOrEqual(before);
    expect(Number(b.unixtime)).toBe(Number(a.unixtime) + 1);
    const parsed = parseReport(a);
    if (!parsed.ok || parsed.report.type !== "call") throw new Error("not a call report");
    expect(parsed.report.reportedAt?.getTime()).toBe(Number(a.unixtime) * 1000);
    expect(parsed.report.endedAt?.getTime()).toBe(Number(a.unixtime) * 1000);
    expect(parsed.report.startedAt?.getTime()).toBe((Number(a.unixtime) - 23) * 1000);
  });
});
