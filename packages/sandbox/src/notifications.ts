import { randomInt, randomUUID } from "node:crypto";
import {
  CONTACT_EVENT,
  type ContactUpdatePayload,
  DOCUMENTED_CONTACT_UPDATE_SAMPLE,
  DOCUMENTED_LINK_VISIT_SAMPLE,
  DOCUMENTED_MESSAGE_IN_SAMPLE,
  type DocumentedUnsubscribePayload,
  type EventEnvelope,
  LINK_VISIT_EVENT,
  type LinkVisitPayload,
  type MessageInEventPayload,
  type MessageStatusEventPayload,
  PROVIDER_EVENTS,
  type ProviderEvent,
} from "@reportkit/wire";
import { checkAt, checkText, FieldCheck } from "./field-errors.js";
import { formatWallClock } from "./format-wall-clock.js";
import { laravelTimestamp } from "./laravel-timestamp.js";
import { SANDBOX_SENDER } from "./message-log.js";
import type { ReportClock } from "./reports.js";

// What the provider pushes besides delivery and call reports, as its pages show each body
// (v2/event/index.md, v2/link/webhook.md): the opt-outs (`<channel>:unsubscription`, bare), other
// channels' message statuses and inbound messages (`{event, payload}` envelopes), the contact
// update (bare) and the smart-link visit (bare). Each is built from the overrides given, the
// rest made up realistically, times now.

/** The events the sandbox pushes as notifications: every event but the two of reports, and a link visit. */
export type NotificationEvent =
  | Exclude<ProviderEvent, "sms:message:status" | "voice:message:out">
  | typeof LINK_VISIT_EVENT;

export const NOTIFICATION_EVENTS: readonly NotificationEvent[] = [
  ...PROVIDER_EVENTS.filter(
    (event): event is Exclude<ProviderEvent, "sms:message:status" | "voice:message:out"> =>
      event !== "sms:message:status" && event !== "voice:message:out",
  ),
  LINK_VISIT_EVENT,
];

/** What a notification may override; each is the body's field of that name (`foreignId`: `foreign_id`). */
export interface NotificationOverrides {
  /** An opt-out: the number that opted out (digits). Default 919876543210. */
  receiver?: string;
  /** An opt-out: what it opted out of, "sender" (default) or "all" (or a channel's own). */
  type?: string;
  /** An opt-out: the sender id opted out of (default the sandbox's, RPTKIT), "*" for all. */
  value?: string;
  /**
   * A message status: sent, delivered (default), read, failed or deleted. A contact update:
   * "created" or "updated" (default), sent as the provider's text.
   */
  status?: string;
  /** A message status or inbound message: the message's id (default a new one); a contact's id. */
  id?: string | number;
  /** A message status: the number messaged; an inbound message: your number. */
  to?: string;
  /** A message status: your number (or sender id); an inbound message: who wrote. */
  from?: string;
  /** A message status: your own id for the message (`foreign_id`). */
  foreignId?: string;
  /** An inbound message: its text. */
  text?: string;
  /** A contact update: the contact's identity (an e-mail address, say). */
  identity?: string;
  /** A smart-link visit: the visitor's number (digits). Default 919876543210. */
  mobile?: string;
  /** A smart-link visit: the link's id (`link_id`). Default 246. */
  linkId?: number | string;
  /** When it happened (an opt-out's `created_at`, a status's times). Default now. */
  at?: Date;
}

/**
 * The opt-out `sandbox.optOut` pushes: the `sms:unsubscription` body, in the order of the event
 * page's sample, its id a uuid.
 */
export type SandboxOptOutPayload = DocumentedUnsubscribePayload & { id: string };

/** A notification's body, as pushed. */
export type NotificationPayload =
  | DocumentedUnsubscribePayload
  | EventEnvelope<MessageStatusEventPayload>
  | EventEnvelope<MessageInEventPayload>
  | ContactUpdatePayload
  | LinkVisitPayload;

export interface BuiltNotification {
  payload: NotificationPayload;
  /** The receiver's kind for it: an opt-out, or another event. */
  kind: "unsubscribe" | "event";
  /** What the push log knows it by: the body's id (the message's, for a message status). */
  reportId: string;
}

type Family = "unsubscription" | "status" | "in" | "contact" | "link";

/** Each override by its wire name, as the HTTP API takes it. */
export const NOTIFICATION_FIELDS = {
  receiver: "receiver",
  type: "type",
  value: "value",
  status: "status",
  id: "id",
  to: "to",
  from: "from",
  foreign_id: "foreignId",
  text: "text",
  identity: "identity",
  mobile: "mobile",
  link_id: "linkId",
} as const satisfies Record<string, keyof NotificationOverrides>;
type WireName = keyof typeof NOTIFICATION_FIELDS;

/** The fields each family of bodies takes, by wire name. */
const FIELDS: Readonly<Record<Family, readonly WireName[]>> = {
  unsubscription: ["receiver", "type", "value"],
  status: ["status", "id", "to", "from", "foreign_id"],
  in: ["from", "to", "text"],
  contact: ["status", "id", "identity"],
  link: ["mobile", "link_id"],
};

const MESSAGE_STATUSES = ["sent", "delivered", "read", "failed", "deleted"];

function familyOf(event: NotificationEvent): Family {
  if (event === LINK_VISIT_EVENT) return "link";
  if (event === CONTACT_EVENT) return "contact";
  if (event.endsWith(":unsubscription")) return "unsubscription";
  return event.endsWith(":message:status") ? "status" : "in";
}

/**
 * The overrides of a request's fields (by wire name), each one `event`'s body takes.
 * @throws FieldErrors naming a field the body does not take (given for nothing: refused, not
 * dropped) and the ones it does
 */
export function notificationOverrides(
  event: NotificationEvent,
  fields: Readonly<Record<string, unknown>>,
): NotificationOverrides {
  const takes: readonly string[] = FIELDS[familyOf(event)];
  const check = new FieldCheck();
  const overrides: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields)) {
    if (takes.includes(field)) overrides[NOTIFICATION_FIELDS[field as WireName]] = value;
    else
      check.add(
        field,
        `The ${field} field is not part of a ${event} push; it takes ${takes.join(", ")}.`,
      );
  }
  check.done();
  return overrides as NotificationOverrides;
}

/**
 * A realistic notification of `event`.
 * @throws FieldErrors naming each invalid override
 */
export function buildNotification(
  event: NotificationEvent,
  overrides: NotificationOverrides,
  clock: ReportClock,
): BuiltNotification {
  const check = new FieldCheck();
  const family = familyOf(event);
  const now = checkAt(check, overrides.at, clock.now);
  const channel = event.slice(0, event.indexOf(":"));
  const text = (field: WireName, fallback: string, max = 255) =>
    checkText(check, field, overrides[NOTIFICATION_FIELDS[field]], max) ?? fallback;
  const digits = (field: WireName, fallback: string) => {
    const value = overrides[NOTIFICATION_FIELDS[field]];
    if (value === undefined) return fallback;
    if (typeof value !== "string" || !/^\d{8,15}$/.test(value)) {
      check.add(field, `The ${field} field must be 8 to 15 digits (country code included).`);
      return fallback;
    }
    return value;
  };
  const built = (() => {
    switch (family) {
      case "unsubscription":
        return optOut(channel, text, digits, now);
      case "status":
        return messageStatus(event, channel, text, digits, check, now);
      case "in":
        return messageIn(event, channel, text, digits);
      case "contact":
        return contactUpdate(overrides, text, check, now);
      case "link":
        return linkVisit(overrides, digits, check, { ...clock, now });
    }
  })();
  check.done();
  return built;
}

type Text = (field: WireName, fallback: string, max?: number) => string;
type Digits = (field: WireName, fallback: string) => string;

/** ISO 8601 with microseconds, as the provider's events write times. */
const iso = (ms: number) => laravelTimestamp(new Date(ms));

function optOut(channel: string, text: Text, digits: Digits, now: Date): BuiltNotification {
  const type = text("type", "sender", 32);
  // SMS and voice opt-outs have a uuid; WhatsApp's, RCS's and Viber's a number (the page's samples).
  const id = channel === "sms" || channel === "voice" ? randomUUID() : randomInt(1, 10_000_000);
  const payload: DocumentedUnsubscribePayload = {
    id,
    receiver: digits("receiver", "919876543210"),
    type,
    value: text("value", type === "all" ? "*" : SANDBOX_SENDER, 64),
    created_at: iso(now.getTime()),
    status: "Unsubscriber created successfully",
  };
  return { payload, kind: "unsubscribe", reportId: String(id) };
}

function messageStatus(
  event: string,
  channel: string,
  text: Text,
  digits: Digits,
  check: FieldCheck,
  now: Date,
): BuiltNotification {
  const status = text("status", "delivered", 32);
  if (!MESSAGE_STATUSES.includes(status)) {
    check.add("status", `The status field must be one of ${MESSAGE_STATUSES.join(", ")}.`);
  }
  const id = text("id", randomUUID(), 64);
  const at = now.getTime();
  const reached = (...statuses: string[]) => statuses.includes(status);
  const payload: MessageStatusEventPayload = {
    id,
    channel,
    // WhatsApp's business number; RCS's and Viber's sender id (the page's samples).
    from: text(
      "from",
      channel === "whatsapp" ? "919019120123" : `${SANDBOX_SENDER.toLowerCase()}-agent`,
      64,
    ),
    to: digits("to", "919876543210"),
    status,
    delivered_at: reached("delivered", "read") ? iso(at - 1000) : null,
    read_at: reached("read") ? iso(at) : null,
    processed_at: iso(at - 2000),
    timestamp: iso(at),
    foreign_id: text("foreign_id", ""),
  };
  return { payload: { event, payload }, kind: "event", reportId: id };
}

function messageIn(event: string, channel: string, text: Text, digits: Digits): BuiltNotification {
  const sample = DOCUMENTED_MESSAGE_IN_SAMPLE.payload;
  const id = randomUUID();
  const payload: MessageInEventPayload = {
    id,
    channels: [{ name: channel, to: digits("to", "919019123456") }],
    recipient: { from: digits("from", "918074123456"), user: { ...sample.recipient.user } },
    message: { type: "text", payload: { text: text("text", "Hello from the sandbox", 4096) } },
  };
  return { payload: { event, payload }, kind: "event", reportId: id };
}

function contactUpdate(
  overrides: NotificationOverrides,
  text: Text,
  check: FieldCheck,
  now: Date,
): BuiltNotification {
  const given = overrides.id;
  const id = typeof given === "string" && /^\d{1,9}$/.test(given) ? Number(given) : given;
  if (id !== undefined && (typeof id !== "number" || !Number.isSafeInteger(id) || id < 1)) {
    check.add("id", "The id field must be a whole number from 1.");
  }
  const status = text("status", "updated", 16);
  if (status !== "created" && status !== "updated") {
    check.add("status", "The status field must be created or updated.");
  }
  const at = now.getTime();
  const payload: ContactUpdatePayload = {
    ...DOCUMENTED_CONTACT_UPDATE_SAMPLE,
    id: typeof id === "number" ? id : randomInt(1, 10_000_000),
    identity: text("identity", DOCUMENTED_CONTACT_UPDATE_SAMPLE.identity),
    attributes: { ...DOCUMENTED_CONTACT_UPDATE_SAMPLE.attributes },
    // Created now; or created a day ago and updated now.
    created_at: iso(status === "created" ? at : at - 86_400_000),
    updated_at: iso(at),
    status: `Subscriber ${status} successfully`,
  };
  return { payload, kind: "event", reportId: String(payload.id) };
}

function linkVisit(
  overrides: NotificationOverrides,
  digits: Digits,
  check: FieldCheck,
  clock: ReportClock,
): BuiltNotification {
  const given = overrides.linkId;
  const linkId = typeof given === "string" && /^\d{1,9}$/.test(given) ? Number(given) : given;
  if (
    linkId !== undefined &&
    (typeof linkId !== "number" || !Number.isSafeInteger(linkId) || linkId < 1)
  ) {
    check.add("link_id", "The link id field must be a whole number from 1.");
  }
  const payload: LinkVisitPayload = {
    ...DOCUMENTED_LINK_VISIT_SAMPLE,
    id: `${randomUUID()}:1`,
    link_id: typeof linkId === "number" ? linkId : DOCUMENTED_LINK_VISIT_SAMPLE.link_id,
    mobile: digits("mobile", "919876543210"),
    created_at: formatWallClock(clock.now, clock.timeZone),
  };
  return { payload, kind: "event", reportId: payload.id };
}
