import { PROVIDER_EVENTS, safeDecode } from "@reportkit/wire";
import { FieldCheck, hasControlCharacter } from "./field-errors.js";
import { fail, type JsonReply, laravelTimestamp, ok, paginate } from "./laravel.js";
import { type ApiRequest, notAllowed } from "./management-api.js";

// Event subscriptions (v2/subscriptions/index.md): `developer/subscriptions` lists, creates,
// shows and deletes them, in the envelopes the page shows. The sandbox routes by them too: a
// simulated SMS (call) sent without `webhook_id` goes to the webhook subscribed to
// sms:message:status (voice:message:out) with identity "all", the latest such subscription, and
// an opt-out or another event always goes to the one subscribed to its event.

export interface StoredSubscription {
  id: number;
  event: string;
  identity: string;
  webhookId: string;
  createdAt: Date;
}

export class SubscriptionStore {
  private readonly byId = new Map<number, StoredSubscription>();
  private nextId = 1;

  create(fields: Omit<StoredSubscription, "id" | "createdAt">): StoredSubscription {
    const subscription = { ...fields, id: this.nextId++, createdAt: new Date() };
    this.byId.set(subscription.id, subscription);
    return subscription;
  }

  /** Newest first, as the page's list shows them. */
  list(): StoredSubscription[] {
    return [...this.byId.values()].reverse();
  }

  get(id: string): StoredSubscription | undefined {
    return /^\d{1,15}$/.test(id) ? this.byId.get(Number(id)) : undefined;
  }

  delete(id: string): boolean {
    const found = this.get(id);
    return found !== undefined && this.byId.delete(found.id);
  }

  /** The latest `identity: "all"` subscription to `event`, if any. */
  subscriptionFor(event: string): StoredSubscription | undefined {
    return this.list().find((s) => s.event === event && s.identity === "all");
  }

  /** The webhook the latest `identity: "all"` subscription to `event` names, if any. */
  webhookFor(event: string): string | undefined {
    return this.subscriptionFor(event)?.webhookId;
  }
}

type Route = ((request: ApiRequest) => JsonReply) | JsonReply | undefined;

export function subscriptionsRoute(store: SubscriptionStore, request: ApiRequest): Route {
  const { method, path } = request;
  if (path === "developer/subscriptions") {
    if (method === "GET" || method === "HEAD") return (r) => list(store, r);
    if (method === "POST") return (r) => create(store, r);
    return notAllowed(method, path, "GET, HEAD, POST");
  }
  const item = /^developer\/subscriptions\/([^/]+)$/.exec(path);
  if (item === null) return undefined;
  const id = safeDecode(item[1] as string);
  if (method === "GET" || method === "HEAD") return () => show(store, id);
  if (method === "DELETE") return () => remove(store, id);
  return notAllowed(method, path, "GET, HEAD, DELETE");
}

/** The resource: `payload` [] when just created, null when listed or shown (as the page shows). */
function resource(s: StoredSubscription, payload: [] | null) {
  return {
    id: s.id,
    event: s.event,
    identity: s.identity,
    payload,
    webhook_id: s.webhookId,
    created_at: laravelTimestamp(s.createdAt),
  };
}

function list(store: SubscriptionStore, request: ApiRequest): JsonReply {
  const text = request.query.get("page") ?? "1";
  const page = /^\d+$/.test(text) && Number(text) >= 1 ? Number(text) : 1;
  const items = store.list().map((s) => resource(s, null));
  const path = new URL("developer/subscriptions", request.baseUrl).href;
  const { data, links, meta } = paginate(items, page, path, []);
  return ok("Subscriptions List", data, { links, meta });
}

function create(store: SubscriptionStore, { body }: ApiRequest): JsonReply {
  const check = new FieldCheck();
  const text = (field: string): string => {
    const value = body[field];
    if (value === undefined || value === null || value === "") {
      check.add(field, `The ${field.replace("_", " ")} field is required.`);
    } else if (typeof value !== "string" || value.length > 255 || hasControlCharacter(value)) {
      check.add(
        field,
        `The ${field.replace("_", " ")} field must be a string of at most 255 characters.`,
      );
    } else return value.trim();
    return "";
  };
  const event = text("event");
  if (event !== "" && !(PROVIDER_EVENTS as readonly string[]).includes(event)) {
    check.add("event", "The selected event is invalid.");
  }
  const identity = text("identity");
  const webhookId = text("webhook_id");
  check.done();
  const created = store.create({ event, identity, webhookId });
  return ok("Subscription Saved Successfully", resource(created, []));
}

function show(store: SubscriptionStore, id: string): JsonReply {
  const found = store.get(id);
  if (found === undefined) return notFound(id);
  return ok("Subscription", resource(found, null));
}

function remove(store: SubscriptionStore, id: string): JsonReply {
  if (!store.delete(id)) return notFound(id);
  return ok("Subscription Deleted successfully", []);
}

function notFound(id: string): JsonReply {
  return fail(404, `Subscription ${id.slice(0, 64)} not found.`);
}
