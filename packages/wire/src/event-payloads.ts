// The pushes that are not delivery or call reports, as the provider's pages show them: the
// events a subscription routes to a webhook (v2/event/index.md), other channels' `{event,
// payload}` envelopes among them, and two bare bodies, the contact update and the smart-link
// visit (v2/link/webhook.md). reportkit types the envelope (core's EventReport); these types
// and samples say what the payloads hold, for the sandbox that pushes them and the testing kit.

/** The events of `v2/event/index.md`, in its order: a subscription's `event`. */
export const PROVIDER_EVENTS = [
  "sms:message:status",
  "sms:unsubscription",
  "whatsapp:message:in",
  "whatsapp:message:status",
  "whatsapp:unsubscription",
  "rcs:message:in",
  "rcs:message:status",
  "rcs:unsubscription",
  "voice:message:out",
  "voice:unsubscription",
  "viber:message:status",
  "viber:message:in",
  "viber:unsubscription",
  "vmn:message:in",
  "contacts:subscriber:subscription",
] as const;
export type ProviderEvent = (typeof PROVIDER_EVENTS)[number];

/** The contact update's event: pushed bare, without its name. */
export const CONTACT_EVENT = "contacts:subscriber:subscription";

/**
 * reportkit's name for a smart-link visit (`v2/link/webhook.md`), which the provider pushes bare
 * to the webhook chosen for the link, not through a subscription, and names no event for.
 */
export const LINK_VISIT_EVENT = "link:visit";

/** Another channel's event as pushed: its name and its payload. */
export interface EventEnvelope<P extends object = Record<string, unknown>> {
  event: string;
  payload: P;
}

/** The payload of a `<channel>:message:status` event (WhatsApp, RCS, Viber). */
export interface MessageStatusEventPayload {
  id: string;
  channel: string;
  /** The business number (WhatsApp) or the sender's id (RCS, Viber). */
  from: string;
  to: string;
  /** sent, delivered, read, failed or deleted. */
  status: string;
  delivered_at: string | null;
  read_at: string | null;
  processed_at: string | null;
  timestamp: string;
  foreign_id: string;
}

/** The payload of a `<channel>:message:in` event: a message to your number (WhatsApp, RCS, Viber, VMN). */
export interface MessageInEventPayload {
  id: string;
  channels: { name: string; to: string }[];
  recipient: { from: string; user: Record<string, unknown> };
  message: { type: string; payload: Record<string, unknown> };
}

/** The contact update (`contacts:subscriber:subscription`), pushed bare. */
export interface ContactUpdatePayload {
  id: number;
  identity: string;
  first_name: string | null;
  middle_name: string | null;
  last_name: string | null;
  gender: string | null;
  birth_date: string | null;
  company: string | null;
  attributes: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  /** "Subscriber created successfully" or "Subscriber updated successfully". */
  status: string;
}

/** The smart-link visit (`v2/link/webhook.md`), pushed bare. */
export interface LinkVisitPayload {
  id: string;
  link_id: number;
  user_agent: string;
  browser: string;
  browser_version: string;
  platform: string;
  device_type: string;
  device_brand: string;
  country: string;
  country_code: string;
  region: string;
  city: string;
  mobile: string;
  /** Wall-clock "yyyy-mm-dd HH:MM:SS" in the provider's zone. */
  created_at: string;
}

const AT = "2021-06-18T14:48:06.886358Z";

/** The `whatsapp:message:status` sample, one status in place of the page's list of them. */
export const DOCUMENTED_MESSAGE_STATUS_SAMPLE: Readonly<EventEnvelope<MessageStatusEventPayload>> =
  Object.freeze({
    event: "whatsapp:message:status",
    payload: Object.freeze({
      id: "a418d672-9781-4d97-b517-a56f7d95ad8a",
      channel: "whatsapp",
      from: "919019120123",
      to: "919019912345",
      status: "delivered",
      delivered_at: AT,
      read_at: null,
      processed_at: AT,
      timestamp: AT,
      foreign_id: "your-business-identifier",
    }),
  });

/** The `vmn:message:in` sample, an SMS to your virtual number, as valid JSON would carry it. */
export const DOCUMENTED_MESSAGE_IN_SAMPLE: Readonly<EventEnvelope<MessageInEventPayload>> =
  Object.freeze({
    event: "vmn:message:in",
    payload: Object.freeze({
      id: "our-message-id",
      channels: [{ name: "vmn", to: "919019123456" }],
      recipient: {
        from: "918074123456",
        user: {
          id: "unique-id",
          identifier_id: "unique-identifier-id",
          subscriber_id: "unique-subscriber-id",
          identity: "unique-user-identity",
          username: "username",
          first_name: "user first name",
          middle_name: "user middle name",
          last_name: "user last name",
          email: "user email",
          phone: "user phone number",
          attributes: "user attributes",
          user_info: { picture: "null", gender: "user-gender", title: "null" },
        },
      },
      message: { type: "text", payload: { text: "This is a simple text message" } },
    }),
  });

/** The contact update sample ("Contact Updated Notification"). */
export const DOCUMENTED_CONTACT_UPDATE_SAMPLE: Readonly<ContactUpdatePayload> = Object.freeze({
  id: 86,
  identity: "demo@gmail.com",
  first_name: "Demo",
  middle_name: null,
  last_name: "Test",
  gender: "male",
  birth_date: "1996-07-16",
  company: null,
  attributes: Object.freeze({ membership: "platinum", status: "vip", customerNumber: "23" }),
  created_at: "2023-07-17T11:45:34.000000Z",
  updated_at: "2023-07-17T11:46:06.000000Z",
  status: "Subscriber updated successfully",
});

/** The smart-link visit sample, as valid JSON would carry it (the page leaves a string open). */
export const DOCUMENTED_LINK_VISIT_SAMPLE: Readonly<LinkVisitPayload> = Object.freeze({
  id: "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1",
  link_id: 246,
  user_agent: "Mozilla/5.0)",
  browser: "Goole Chorme",
  browser_version: "23.3.1",
  platform: "Android",
  device_type: "smartphone",
  device_brand: "Redmi",
  country: "india",
  country_code: "IN",
  region: "Karnataka",
  city: "Bangalore",
  mobile: "918919512345",
  created_at: "2021-04-09 16:27:39",
});
