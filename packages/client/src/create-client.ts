import { normalizeBaseUrl } from "./base-url.js";
import { type CallsApi, callsApi, type DlrApi, dlrApi } from "./pull-apis.js";
import {
  type Webhook,
  WebhookListResponseSchema,
  type WebhookPage,
  WebhookResponseSchema,
} from "./schemas.js";
import { type SubscriptionsApi, subscriptionsApi } from "./subscriptions-api.js";
import { request, type Transport, validate } from "./transport.js";
import {
  type CallLogsApi,
  callLogsApi,
  type RecordingsApi,
  recordingsApi,
} from "./voice-logs-api.js";
import { walkPages } from "./walk-pages.js";

export interface ClientOptions {
  /** The provider's base address, ending in /api/v2/ (the final slash is added if missing). */
  baseUrl: string;
  /** The account's API access token, sent as `Authorization: Bearer <token>`. */
  token: string;
  /** A fetch implementation; default the global one. */
  fetch?: typeof globalThis.fetch;
  /** Abandon one attempt after this many ms. Default 30000. */
  timeoutMs?: number;
  /**
   * Largest response body the client reads, in bytes; a larger one is a
   * ResponseTooLargeError, and at most this much is held in memory. Default 1 MiB (a page of
   * 15 webhooks is a few kB).
   */
  maxResponseBytes?: number;
  /** Retries of an idempotent call (GET, PUT, DELETE) after a network error, 429, 502, 503 or 504. Default 2. */
  retries?: number;
  /** First backoff step in ms, doubled each retry. Default 500. */
  retryBaseMs?: number;
  /** Cap on one backoff wait and on an honoured Retry-After, in ms. Default 30000. */
  maxRetryDelayMs?: number;
}

export interface ListWebhooksParams {
  /** Only webhooks whose name matches (sent as filter[name]). */
  name?: string;
  /** 1-based page number; 15 webhooks a page. */
  page?: number;
}

export interface CreateWebhookInput {
  name: string;
  /** The URL that receives the pushed reports. */
  uri: string;
  /** 1 active (the default), 0 inactive. */
  status?: 0 | 1;
  /**
   * The webhook's secret: the provider sends it as `Authorization: Bearer <secret>` with every
   * push, so it is what the receiver's `secret` (REPORTKIT_SECRET) must equal.
   */
  secret?: string;
  /**
   * The webhook's token (the provider's validation key): sent once, in the verification request
   * the provider POSTs to `uri` when the webhook is created (`?token=<token>`, and the body's
   * `validation_key`), never as a bearer. It is the receiver's `verificationToken`
   * (REPORTKIT_VERIFICATION_TOKEN). The sandbox sends that request too.
   */
  token?: string;
}

export interface UpdateWebhookInput {
  name: string;
  uri: string;
  status?: 0 | 1;
  /** A new secret: the bearer of the pushes that follow (the receiver's `secret`). */
  secret?: string;
  /**
   * A new token, the validation key of the next verification (the receiver's
   * `verificationToken`). The sandbox takes it; the provider's documented edit lists no such field.
   */
  token?: string;
}

export interface WebhooksApi {
  /** One page of webhooks. */
  list(params?: ListWebhooksParams): Promise<WebhookPage>;
  /** Every webhook, page after page. */
  iterate(params?: Omit<ListWebhooksParams, "page">): AsyncIterableIterator<Webhook>;
  /** Registers a webhook. Never retried: a retry after a lost response would create a duplicate. */
  create(input: CreateWebhookInput): Promise<Webhook>;
  get(id: string): Promise<Webhook>;
  /** Replaces name and uri (both required by the API), and status and secret when given. */
  update(id: string, input: UpdateWebhookInput): Promise<Webhook>;
  delete(id: string): Promise<void>;
}

export interface Client {
  readonly baseUrl: string;
  readonly webhooks: WebhooksApi;
  /** Messages and their current status (Pull DLR, `sms/status`), and the status summary. */
  readonly dlr: DlrApi;
  /** Calls and their status (`outgoing/callstatus`). */
  readonly calls: CallsApi;
  /** Event subscriptions (`developer/subscriptions`). */
  readonly subscriptions: SubscriptionsApi;
  /** Call Logs (`voice/calls`): every call, with its duration, billing and charges. */
  readonly callLogs: CallLogsApi;
  /** Recordings (`voice/recordings`): fresh URLs of call recordings, and a call's own. */
  readonly recordings: RecordingsApi;
}

const WEBHOOKS = "developer/webhooks";

/**
 * A typed client for the provider's API: the webhook management API, the pull APIs (messages
 * and calls with their status, the status summary), event subscriptions, and the voice logs
 * (Call Logs, Recordings).
 *
 * @example
 * const client = createClient({ baseUrl: "https://api.example.com/api/v2/", token });
 * const hook = await client.webhooks.create({ name: "orders", uri: "https://my.app/reports" });
 * for await (const webhook of client.webhooks.iterate()) console.log(webhook.name, webhook.active);
 */
export function createClient(options: ClientOptions): Client {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("reportkit client: createClient(options) needs { baseUrl, token }.");
  }
  const baseUrl = normalizeBaseUrl(options.baseUrl);
  if (typeof options.token !== "string" || options.token.trim() === "") {
    throw new TypeError(
      "reportkit client: `token` is required: the account's API access token (for the CLI, REPORTKIT_API_TOKEN).",
    );
  }
  if (/[\r\n]/.test(options.token)) {
    throw new TypeError("reportkit client: `token` must be a single line (it has a line break).");
  }
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== "function") {
    throw new TypeError(
      "reportkit client: no fetch available; pass `fetch` or use Node.js 20.19 or newer.",
    );
  }
  const transport: Transport = {
    baseUrl,
    token: options.token.trim(),
    fetch: fetchImpl,
    timeoutMs: positive(options.timeoutMs, "timeoutMs", 30_000),
    maxResponseBytes: byteCount(options.maxResponseBytes, "maxResponseBytes", 1_048_576),
    retries: wholeNumber(options.retries, "retries", 2),
    retryBaseMs: positive(options.retryBaseMs, "retryBaseMs", 500),
    maxRetryDelayMs: positive(options.maxRetryDelayMs, "maxRetryDelayMs", 30_000),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    random: Math.random,
  };
  return createClientWith(transport);
}

/** The client over a given transport (tests replace sleep and random). */
export function createClientWith(t: Transport): Client {
  async function list(params: ListWebhooksParams = {}): Promise<WebhookPage> {
    if (params.page !== undefined && (!Number.isSafeInteger(params.page) || params.page < 1)) {
      throw new TypeError(
        `reportkit client: \`page\` must be a whole number from 1, got ${String(params.page)}.`,
      );
    }
    const body = await request(t, {
      method: "GET",
      path: WEBHOOKS,
      query: { "filter[name]": params.name, page: params.page },
    });
    return validate(t, WebhookListResponseSchema, `GET ${WEBHOOKS}`, body);
  }

  function iterate(params: Omit<ListWebhooksParams, "page"> = {}): AsyncIterableIterator<Webhook> {
    return walkPages(`GET ${WEBHOOKS}`, (page) => list({ ...params, page }));
  }

  async function create(input: CreateWebhookInput): Promise<Webhook> {
    const body = await request(t, {
      method: "POST",
      path: WEBHOOKS,
      body: pick(input, ["name", "uri", "status", "secret", "token"]),
    });
    return validate(t, WebhookResponseSchema, `POST ${WEBHOOKS}`, body).data;
  }

  async function get(id: string): Promise<Webhook> {
    const path = itemPath(id);
    const body = await request(t, { method: "GET", path });
    return validate(t, WebhookResponseSchema, `GET ${path}`, body).data;
  }

  async function update(id: string, input: UpdateWebhookInput): Promise<Webhook> {
    const path = itemPath(id);
    const body = await request(t, {
      method: "PUT",
      path,
      body: pick(input, ["name", "uri", "status", "secret", "token"]),
    });
    return validate(t, WebhookResponseSchema, `PUT ${path}`, body).data;
  }

  async function remove(id: string): Promise<void> {
    await request(t, { method: "DELETE", path: itemPath(id) });
  }

  return {
    baseUrl: t.baseUrl,
    webhooks: { list, iterate, create, get, update, delete: remove },
    dlr: dlrApi(t),
    calls: callsApi(t),
    subscriptions: subscriptionsApi(t),
    callLogs: callLogsApi(t),
    recordings: recordingsApi(t),
  };
}

function itemPath(id: string): string {
  if (typeof id !== "string" || id.trim() === "") {
    throw new TypeError("reportkit client: a webhook id is required (the UUID from create/list).");
  }
  return `${WEBHOOKS}/${encodeURIComponent(id.trim())}`;
}

function pick<T extends object>(input: T, keys: readonly (keyof T & string)[]) {
  if (typeof input !== "object" || input === null) {
    throw new TypeError("reportkit client: the webhook fields must be an object.");
  }
  const out: Record<string, unknown> = {};
  for (const key of keys) if (input[key] !== undefined) out[key] = input[key];
  return out;
}

// Timers take at most a signed 32-bit number of ms (about 24.8 days).
export const MAX_TIMER_MS = 2 ** 31 - 1;

function positive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0 || value > MAX_TIMER_MS) {
    throw new TypeError(
      `reportkit client: \`${name}\` must be a whole number of ms from 1 to ${MAX_TIMER_MS}.`,
    );
  }
  return value;
}

function wholeNumber(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`reportkit client: \`${name}\` must be a whole number from 0.`);
  }
  return value;
}

function byteCount(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(
      `reportkit client: \`${name}\` must be a whole number of bytes from 1, got ${String(value)}.`,
    );
  }
  return value;
}
