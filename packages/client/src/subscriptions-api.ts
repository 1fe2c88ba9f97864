import { pageParam } from "./pull-query.js";
import {
  type Subscription,
  type SubscriptionPage,
  SubscriptionPageSchema,
  SubscriptionResponseSchema,
} from "./pull-schemas.js";
import { request, type Transport, validate } from "./transport.js";
import { walkPages } from "./walk-pages.js";

export interface CreateSubscriptionInput {
  /** The event, e.g. "sms:message:status" (SMS delivery reports) or "voice:message:out" (calls). */
  event: string;
  /** Which sources of the event, e.g. "all". */
  identity: string;
  /** The webhook that then receives every report of the event, without `webhook_id` on each send. */
  webhookId: string;
}

/** Event subscriptions (v2/subscriptions/index.md): route every report of an event to a webhook. */
export interface SubscriptionsApi {
  /** One page (15) of subscriptions. */
  list(params?: { page?: number }): Promise<SubscriptionPage>;
  /** Every subscription, page after page. */
  iterate(): AsyncIterableIterator<Subscription>;
  /** Subscribes a webhook to an event. Never retried: a retry after a lost response would subscribe twice. */
  create(input: CreateSubscriptionInput): Promise<Subscription>;
  get(id: string | number): Promise<Subscription>;
  delete(id: string | number): Promise<void>;
}

const SUBSCRIPTIONS = "developer/subscriptions";

export function subscriptionsApi(t: Transport): SubscriptionsApi {
  async function list(params: { page?: number } = {}): Promise<SubscriptionPage> {
    const page = pageParam(params?.page);
    const body = await request(t, { method: "GET", path: SUBSCRIPTIONS, query: { page } });
    return validate(t, SubscriptionPageSchema, `GET ${SUBSCRIPTIONS}`, body);
  }

  async function create(input: CreateSubscriptionInput): Promise<Subscription> {
    if (typeof input !== "object" || input === null) {
      throw new TypeError(
        "reportkit client: subscriptions.create needs { event, identity, webhookId }.",
      );
    }
    for (const field of ["event", "identity", "webhookId"] as const) {
      const value = input[field];
      if (typeof value !== "string" || value.trim() === "") {
        throw new TypeError(
          `reportkit client: subscriptions.create: \`${field}\` is required (a non-empty string), e.g. { event: "sms:message:status", identity: "all", webhookId: "<webhook id>" }.`,
        );
      }
    }
    const body = await request(t, {
      method: "POST",
      path: SUBSCRIPTIONS,
      body: {
        event: input.event.trim(),
        identity: input.identity.trim(),
        webhook_id: input.webhookId.trim(),
      },
    });
    return validate(t, SubscriptionResponseSchema, `POST ${SUBSCRIPTIONS}`, body).data;
  }

  async function get(id: string | number): Promise<Subscription> {
    const path = itemPath(id);
    const body = await request(t, { method: "GET", path });
    return validate(t, SubscriptionResponseSchema, `GET ${path}`, body).data;
  }

  async function remove(id: string | number): Promise<void> {
    await request(t, { method: "DELETE", path: itemPath(id) });
  }

  return {
    list,
    iterate: () => walkPages(`GET ${SUBSCRIPTIONS}`, (page) => list({ page })),
    create,
    get,
    delete: remove,
  };
}

function itemPath(id: string | number): string {
  const text = typeof id === "number" && Number.isSafeInteger(id) ? String(id) : id;
  if (typeof text !== "string" || text.trim() === "") {
    throw new TypeError(
      "reportkit client: a subscription id is required (the `id` from create or list).",
    );
  }
  return `${SUBSCRIPTIONS}/${encodeURIComponent(text.trim())}`;
}
