import type { UnsubscribePayload } from "@reportkit/core";
import {
  type ContactUpdatePayload,
  DOCUMENTED_CONTACT_UPDATE_SAMPLE,
  DOCUMENTED_LINK_VISIT_SAMPLE,
  DOCUMENTED_MESSAGE_IN_SAMPLE,
  DOCUMENTED_MESSAGE_STATUS_SAMPLE,
  DOCUMENTED_UNSUBSCRIBE_SAMPLE,
  type DocumentedUnsubscribePayload,
  type EventEnvelope,
  type LinkVisitPayload,
  type MessageInEventPayload,
  type MessageStatusEventPayload,
} from "@reportkit/wire";
import { type PayloadOverrides, type WithOverrides, withOverrides } from "./payloads.js";

// The pushes beyond delivery and call reports, as the provider's pages show them: an opt-out, an
// event envelope of another channel, and the two bare bodies (the contact update, the smart-link
// visit). Each call has a fresh id, so a receiver that deduplicates runs the handler every time.

/** An opt-out as `v2/event/index.md` shows the `sms:unsubscription` event: pushed bare. */
export type UnsubscribePayloadSample = DocumentedUnsubscribePayload & { id: string };

/**
 * A fresh opt-out, as the provider pushes it: the page's sample with a new id.
 *
 * @example
 * unsubscribePayload(); // { id: "…", receiver: "917002088123", type: "sender", value: "Demo12", … }
 * unsubscribePayload({ receiver: "919812345678", type: "all", value: "*" });
 * unsubscribePayload({ id: 436 }); // WhatsApp's, RCS's and Viber's ids are numbers
 */
export function unsubscribePayload<
  const O extends PayloadOverrides<UnsubscribePayload> = Record<never, never>,
>(overrides?: O): WithOverrides<UnsubscribePayloadSample, O> {
  const defaults: UnsubscribePayloadSample = {
    ...DOCUMENTED_UNSUBSCRIBE_SAMPLE,
    id: crypto.randomUUID(),
  };
  return withOverrides(defaults, overrides) as WithOverrides<UnsubscribePayloadSample, O>;
}

/** An event's payload by default: a message status's or an inbound message's, else just an id. */
export type EventPayloadSample<E extends string> = E extends `${string}:message:status`
  ? MessageStatusEventPayload
  : E extends `${string}:message:in`
    ? MessageInEventPayload
    : { id: string };

/**
 * A fresh event of another channel, as the provider pushes it: `{ event, payload }`, the payload
 * the page's sample of its kind (a `<channel>:message:status`, a `<channel>:message:in`) for the
 * event's channel with a new id, or only a new id for another event; `payload` overrides its
 * fields (a field set to `undefined` is left out).
 *
 * @example
 * eventPayload(); // { event: "whatsapp:message:status", payload: { id: "…", channel: "whatsapp", status: "delivered", … } }
 * eventPayload("rcs:message:status", { status: "read", read_at: "2024-06-24T09:51:03.000000Z" });
 * eventPayload("vmn:message:in"); // an SMS to your virtual number
 */
export function eventPayload<
  const E extends string = "whatsapp:message:status",
  const P extends Record<string, unknown> = Record<never, never>,
>(event?: E, payload?: P): EventEnvelope<WithOverrides<EventPayloadSample<E>, P>> {
  const name = event ?? DOCUMENTED_MESSAGE_STATUS_SAMPLE.event;
  const channel = name.slice(0, name.indexOf(":"));
  const id = crypto.randomUUID();
  let defaults: object = { id };
  if (name.endsWith(":message:status")) {
    defaults = { ...DOCUMENTED_MESSAGE_STATUS_SAMPLE.payload, id, channel };
  } else if (name.endsWith(":message:in")) {
    const sample = DOCUMENTED_MESSAGE_IN_SAMPLE.payload;
    defaults = {
      ...structuredClone(sample),
      id,
      channels: sample.channels.map((c) => ({ ...c, name: channel })),
    };
  }
  return {
    event: name,
    payload: withOverrides(defaults, payload) as WithOverrides<EventPayloadSample<E>, P>,
  };
}

/**
 * A fresh contact update (`contacts:subscriber:subscription`), as the provider pushes it, bare:
 * the page's "Contact Updated Notification" with a new contact id.
 *
 * @example
 * contactUpdatePayload(); // { id: 4711, identity: "demo@gmail.com", …, status: "Subscriber updated successfully" }
 * contactUpdatePayload({ status: "Subscriber created successfully" });
 */
export function contactUpdatePayload<
  const O extends PayloadOverrides<ContactUpdatePayload> = Record<never, never>,
>(overrides?: O): WithOverrides<ContactUpdatePayload, O> {
  const defaults: ContactUpdatePayload = {
    ...DOCUMENTED_CONTACT_UPDATE_SAMPLE,
    id: freshNumber(),
    attributes: { ...DOCUMENTED_CONTACT_UPDATE_SAMPLE.attributes },
  };
  return withOverrides(defaults, overrides) as WithOverrides<ContactUpdatePayload, O>;
}

/**
 * A fresh smart-link visit (`v2/link/webhook.md`), as the provider pushes it, bare: the page's
 * sample with a new visit id; the receiver names it `link:visit`.
 *
 * @example
 * linkVisitPayload(); // { id: "…:1", link_id: 246, …, mobile: "918919512345", created_at: "2021-04-09 16:27:39" }
 * linkVisitPayload({ mobile: "919812345678", link_id: 7 });
 */
export function linkVisitPayload<
  const O extends PayloadOverrides<LinkVisitPayload> = Record<never, never>,
>(overrides?: O): WithOverrides<LinkVisitPayload, O> {
  const defaults: LinkVisitPayload = {
    ...DOCUMENTED_LINK_VISIT_SAMPLE,
    id: `${crypto.randomUUID()}:1`,
  };
  return withOverrides(defaults, overrides) as WithOverrides<LinkVisitPayload, O>;
}

/** A new whole number id, as the contact page's. */
function freshNumber(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0] as number;
}
