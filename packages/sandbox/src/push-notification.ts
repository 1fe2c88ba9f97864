import { LINK_VISIT_EVENT } from "@reportkit/wire";
import { FieldErrors } from "./field-errors.js";
import {
  NOTIFICATION_EVENTS,
  type NotificationEvent,
  type NotificationOverrides,
  type NotificationPayload,
  type SandboxOptOutPayload,
} from "./notifications.js";
import type { Dispatched, Dispatcher } from "./simulate-sms-and-calls.js";
import type { SubscriptionStore } from "./subscriptions-api.js";
import type { WebhookStore } from "./webhook-store.js";

// Where an opt-out or an event goes, as the provider's pages say: "When you Subscribe to any of
// these Events, it will forward the payload ... to the client's specified Webhook URL"
// (v2/event/index.md), so to the webhook of the subscription to its event (identity "all", the
// latest, as a send without webhook_id); a smart-link visit to the webhook chosen for its link
// (v2/link/webhook.md), which has no event to subscribe to.

export interface NotificationInput extends NotificationOverrides {
  /** The provider's event ("sms:unsubscription", "whatsapp:message:status", …) or "link:visit". */
  event: NotificationEvent;
  /**
   * A smart-link visit: its link's webhook (required). An event: the webhook to subscribe to it
   * first, unless it is the one subscribed already; without it, the subscribed one.
   */
  webhookId?: string;
}

/**
 * What `sandbox.optOut` takes: an `sms:unsubscription`'s fields, and the webhook to subscribe to
 * it first (without it, the subscribed one gets it).
 */
export type OptOutInput = Pick<
  NotificationInput,
  "webhookId" | "receiver" | "type" | "value" | "at"
>;

/** A notification sent, and the subscription that routed it (none for a smart-link visit). */
export interface DispatchedNotification<P extends NotificationPayload = NotificationPayload>
  extends Dispatched<P> {
  subscription: { id: number; created: boolean } | null;
}

export interface NotificationRouting {
  store: WebhookStore;
  subscriptions: SubscriptionStore;
  dispatcher: Dispatcher;
}

/**
 * Pushes an opt-out or another event where the provider would.
 * @throws FieldErrors for an unknown event, an invalid or missing webhook, no subscription, or
 * an invalid override
 */
export function pushNotification(
  routing: NotificationRouting,
  input: NotificationInput,
): DispatchedNotification {
  const { event, webhookId: given, ...overrides } = input;
  if (!(NOTIFICATION_EVENTS as readonly string[]).includes(event)) {
    throw new FieldErrors({
      event: [`The selected event is invalid; it is one of ${NOTIFICATION_EVENTS.join(", ")}.`],
    });
  }
  const webhookId = typeof given === "string" ? given.trim() : given;
  if (webhookId !== undefined && routing.store.get(webhookId) === undefined) {
    throw new FieldErrors({ webhook_id: ["The selected webhook id is invalid."] });
  }
  if (event === LINK_VISIT_EVENT) {
    if (webhookId === undefined) {
      throw new FieldErrors({
        webhook_id: [
          "The webhook id field is required: a smart-link visit goes to the webhook chosen for its link.",
        ],
      });
    }
    return { ...routing.dispatcher.notify(webhookId, event, overrides), subscription: null };
  }
  const current = routing.subscriptions.subscriptionFor(event);
  const target = webhookId ?? current?.webhookId;
  if (target === undefined) {
    throw new FieldErrors({
      webhook_id: [
        `No webhook is subscribed to ${event}: subscribe one (POST developer/subscriptions with event ${event}, identity all and its webhook_id), or give webhook_id to have the sandbox subscribe it.`,
      ],
    });
  }
  if (routing.store.get(target) === undefined) {
    throw new FieldErrors({
      webhook_id: [
        `The webhook subscribed to ${event} (${target}) was deleted: subscribe another, or give webhook_id.`,
      ],
    });
  }
  // Built (and its fields checked) before the subscription is made: a refused push leaves none.
  const sent = routing.dispatcher.notify(target, event, overrides);
  if (current?.webhookId === target) {
    return { ...sent, subscription: { id: current.id, created: false } };
  }
  const made = routing.subscriptions.create({ event, identity: "all", webhookId: target });
  return { ...sent, subscription: { id: made.id, created: true } };
}

/**
 * Pushes an SMS opt-out (`sms:unsubscription`) where the provider would: `pushNotification` of
 * that event.
 * @throws FieldErrors as pushNotification does
 */
export function pushOptOut(
  routing: NotificationRouting,
  input: OptOutInput,
): DispatchedNotification<SandboxOptOutPayload> {
  const sent = pushNotification(routing, { ...input, event: "sms:unsubscription" });
  // buildNotification gives an SMS opt-out a uuid for its id.
  return sent as DispatchedNotification<SandboxOptOutPayload>;
}
