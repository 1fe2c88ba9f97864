import { describe, expect, it } from "vitest";
import { FieldErrors } from "./field-errors.js";
import {
  buildNotification,
  NOTIFICATION_EVENTS,
  type NotificationEvent,
  notificationOverrides,
} from "./notifications.js";

const NOW = new Date("2023-07-08T12:52:54.250Z"); // 18:22:54 in Asia/Kolkata
const clock = { now: NOW, timeZone: "Asia/Kolkata" };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("buildNotification", () => {
  it("pushes every event but the two of reports, and a smart-link visit", () => {
    expect(NOTIFICATION_EVENTS).toEqual([
      "sms:unsubscription",
      "whatsapp:message:in",
      "whatsapp:message:status",
      "whatsapp:unsubscription",
      "rcs:message:in",
      "rcs:message:status",
      "rcs:unsubscription",
      "voice:unsubscription",
      "viber:message:status",
      "viber:message:in",
      "viber:unsubscription",
      "vmn:message:in",
      "contacts:subscriber:subscription",
      "link:visit",
    ]);
  });

  it("makes an opt-out as the page's: a uuid for SMS and voice, a number for the other channels", () => {
    const sms = buildNotification("sms:unsubscription", { receiver: "919812345678" }, clock);
    expect(sms.kind).toBe("unsubscribe");
    expect(sms.payload).toEqual({
      id: expect.stringMatching(UUID),
      receiver: "919812345678",
      type: "sender",
      value: "RPTKIT",
      created_at: "2023-07-08T12:52:54.250000Z",
      status: "Unsubscriber created successfully",
    });
    expect(sms.reportId).toBe((sms.payload as { id: string }).id);
    const all = buildNotification("whatsapp:unsubscription", { type: "all" }, clock);
    expect(all.payload).toMatchObject({ id: expect.any(Number), type: "all", value: "*" });
    expect(all.reportId).toBe(String((all.payload as { id: number }).id));
  });

  it("makes a message status envelope whose times follow the status", () => {
    const read = buildNotification("rcs:message:status", { status: "read", id: "m-1" }, clock);
    expect(read).toMatchObject({ kind: "event", reportId: "m-1" });
    expect(read.payload).toEqual({
      event: "rcs:message:status",
      payload: {
        id: "m-1",
        channel: "rcs",
        from: "rptkit-agent",
        to: "919876543210",
        status: "read",
        delivered_at: "2023-07-08T12:52:53.250000Z",
        read_at: "2023-07-08T12:52:54.250000Z",
        processed_at: "2023-07-08T12:52:52.250000Z",
        timestamp: "2023-07-08T12:52:54.250000Z",
        foreign_id: "",
      },
    });
    const sent = buildNotification("whatsapp:message:status", { status: "sent" }, clock);
    expect(sent.payload).toMatchObject({
      payload: { from: "919019120123", delivered_at: null, read_at: null },
    });
  });

  it("makes an inbound message, a contact update and a smart-link visit, in their pages' field order", () => {
    const inbound = buildNotification("viber:message:in", { text: "STOP" }, clock);
    expect(inbound.payload).toMatchObject({
      event: "viber:message:in",
      payload: {
        channels: [{ name: "viber", to: "919019123456" }],
        recipient: { from: "918074123456" },
        message: { type: "text", payload: { text: "STOP" } },
      },
    });
    const contact = buildNotification(
      "contacts:subscriber:subscription",
      { id: "86", status: "created" },
      clock,
    );
    expect(contact).toMatchObject({ kind: "event", reportId: "86" });
    expect(contact.payload).toMatchObject({
      id: 86,
      created_at: "2023-07-08T12:52:54.250000Z",
      updated_at: "2023-07-08T12:52:54.250000Z",
      status: "Subscriber created successfully",
    });
    const visit = buildNotification("link:visit", { linkId: 7 }, clock);
    expect(Object.keys(visit.payload)).toEqual([
      "id",
      "link_id",
      "user_agent",
      "browser",
      "browser_version",
      "platform",
      "device_type",
      "device_brand",
      "country",
      "country_code",
      "region",
      "city",
      "mobile",
      "created_at",
    ]);
    expect(visit.payload).toMatchObject({ link_id: 7, created_at: "2023-07-08 18:22:54" });
    expect(visit.reportId).toMatch(/:1$/);
  });

  it("dates a body at `at` when given (an opt-out of last week, say)", () => {
    const at = new Date("2023-07-01T00:00:00.000Z");
    const optOut = buildNotification("sms:unsubscription", { at }, clock);
    expect(optOut.payload).toMatchObject({ created_at: "2023-07-01T00:00:00.000000Z" });
    const visit = buildNotification("link:visit", { at }, clock);
    expect(visit.payload).toMatchObject({ created_at: "2023-07-01 05:30:00" });
  });

  it.each([
    ["sms:unsubscription", { at: new Date(Number.NaN) }, "at", "a valid date"],
    ["sms:unsubscription", { receiver: "12" }, "receiver", "must be 8 to 15 digits"],
    [
      "whatsapp:message:status",
      { status: "seen" },
      "status",
      "sent, delivered, read, failed, deleted",
    ],
    ["contacts:subscriber:subscription", { status: "deleted" }, "status", "created or updated"],
    ["contacts:subscriber:subscription", { id: -1 }, "id", "a whole number from 1"],
    ["link:visit", { linkId: "x" }, "link_id", "a whole number from 1"],
    ["vmn:message:in", { text: "a\nb" }, "text", "single-line string"],
  ] as const)("refuses a bad override of %s, naming the field", (event, overrides, field, says) => {
    const thrown = (() => {
      try {
        buildNotification(event as NotificationEvent, overrides, clock);
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(FieldErrors);
    expect((thrown as FieldErrors).errors[field]?.[0]).toContain(says);
  });
});

describe("notificationOverrides", () => {
  it("reads the HTTP API's wire names, and refuses a field the event's body does not take", () => {
    expect(
      notificationOverrides("whatsapp:message:status", { foreign_id: "o-1", status: "read" }),
    ).toEqual({ foreignId: "o-1", status: "read" });
    expect(() => notificationOverrides("link:visit", { receiver: "919812345678" })).toThrow(
      "The receiver field is not part of a link:visit push; it takes mobile, link_id.",
    );
  });
});
