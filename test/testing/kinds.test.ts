// Each of @reportkit/testing's payloads reaches the handler of its kind through a real receiver,
// on every target sendReport takes: a Click2Call report onCall, an opt-out onUnsubscribe, an
// event envelope, a contact update and a smart-link visit onEvent; a fresh one each call runs the
// handler again where a deduplicating receiver would take a copy for a retry.
import type { CallReport, EventReport, UnsubscribeReport } from "@reportkit/core";
import {
  click2CallPayload,
  contactUpdatePayload,
  eventPayload,
  linkVisitPayload,
  sendReport,
  unsubscribePayload,
} from "@reportkit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { TOKEN } from "../fixtures/samples.js";
import { closeTargets, TARGETS } from "./targets.js";

afterEach(closeTargets);

describe.each(Object.entries(TARGETS))("sendReport to %s, every kind", (_name, build) => {
  const calls: CallReport[] = [];
  const optOuts: UnsubscribeReport[] = [];
  const events: EventReport[] = [];
  const open = () => {
    calls.length = 0;
    optOuts.length = 0;
    events.length = 0;
    return build({
      secret: TOKEN,
      onCall: (report) => void calls.push(report),
      onUnsubscribe: (report) => void optOuts.push(report),
      onEvent: (report) => void events.push(report),
    });
  };
  const send = async (target: Awaited<ReturnType<typeof open>>, payload: object) => {
    const reply = await sendReport(target, payload, { secret: TOKEN });
    expect([reply.status, reply.json]).toEqual([200, { ok: true }]);
  };

  it("a Click2Call report reaches onCall, typed, a second one too", async () => {
    const target = await open();
    const first = click2CallPayload({ to: "flow:220" });
    const second = click2CallPayload();
    await send(target, first);
    await send(target, second);
    expect(calls.map((r) => [r.source, r.to, r.flowId, r.billing, r.status2, r.hangupBy])).toEqual([
      ["C2C", null, 220, 23, "ANSWER", "caller"],
      ["C2C", "918867131234", null, 23, "ANSWER", "caller"],
    ]);
    expect(calls[0]?.reportedAt?.getTime()).toBe(Number(first.unixtime) * 1000);
    expect(calls.every((r) => r.final && r.outcome === "answered" && r.warnings.length === 0)).toBe(
      true,
    );
  });

  it("an opt-out reaches onUnsubscribe, never onDelivery", async () => {
    const target = await open();
    const payload = unsubscribePayload({ receiver: "919812345678", type: "all", value: "*" });
    await send(target, payload);
    await send(target, unsubscribePayload({ id: 436 }));
    expect(optOuts.map((r) => [r.id, r.receiver, r.scope, r.value])).toEqual([
      [payload.id, "919812345678", "all", "*"],
      ["436", "917002088123", "sender", "Demo12"],
    ]);
    expect(optOuts[0]?.createdAt).toEqual(new Date("2023-07-08T12:52:54.000Z"));
  });

  it("an event envelope, a contact update and a smart-link visit reach onEvent by their names", async () => {
    const target = await open();
    const status = eventPayload("rcs:message:status", { status: "read" });
    const inbound = eventPayload("vmn:message:in");
    const contact = contactUpdatePayload();
    const visit = linkVisitPayload({ mobile: "919812345678" });
    for (const payload of [status, inbound, contact, visit]) await send(target, payload);
    expect(events.map((e) => [e.event, e.id, e.status])).toEqual([
      ["rcs:message:status", status.payload.id, "read"],
      ["vmn:message:in", inbound.payload.id, null],
      ["contacts:subscriber:subscription", String(contact.id), "Subscriber updated successfully"],
      ["link:visit", visit.id, null],
    ]);
    expect(events[0]?.payload).toMatchObject({ channel: "rcs", from: "919019120123" });
    expect(events[1]?.payload).toMatchObject({ channels: [{ name: "vmn" }] });
    expect(events[3]?.payload).toMatchObject({ link_id: 246, mobile: "919812345678" });
  });
});

describe("sendReport and a body with objects in it", () => {
  it("refuses to send an event as a form, whose values are text", async () => {
    const target = await TARGETS["core receiver"]?.({ secret: TOKEN, onEvent() {} });
    await expect(
      sendReport(target as never, eventPayload(), { secret: TOKEN, format: "form" }),
    ).rejects.toThrow(
      'sendReport: format "form" sends each field as text, and "payload" is an object; send this payload as JSON (the default), as the provider pushes events and contact updates.',
    );
  });
});
