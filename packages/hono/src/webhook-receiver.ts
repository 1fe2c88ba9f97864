import type { ComposedTemplate, ReceiverOptions } from "@reportkit/core";
import {
  type Attachable,
  adapterReceiver,
  attachable,
  type EnvRecord,
  type ReceiverHeaders,
  type ReceiverRequest,
  SECRET_ENV,
  webBody,
} from "@reportkit/core/adapter";
import type { Context, Env } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** A Hono handler: `app.post("/webhooks", handler)` (the verification handshake is a POST too). */
export type HonoHandler<E extends Env = Env> = (c: Context<E>) => Promise<Response>;

/** The Hono handler, with `onDelivery` / `onCall` / `onError` to attach handlers. */
export type HonoReceiver<
  T extends ComposedTemplate | undefined = undefined,
  E extends Env = Env,
  S extends object = object,
> = Attachable<HonoHandler<E>, T, S>;

/**
 * The reportkit receiver as a Hono handler, for every runtime Hono runs on. Without `secret`,
 * the secret is REPORTKIT_SECRET from `process.env` where there is one; on Cloudflare Workers,
 * from `c.env` (a Worker secret or binding) at each request, as is REPORTKIT_VERIFICATION_TOKEN. Handlers go in the options or are
 * attached after; until one is, reports get 503 `no_handler` (the provider retries), so none is
 * lost while the app starts.
 *
 * @example
 * app.all("/webhooks", webhookReceiver().onDelivery((report) => console.log(report.id)));
 */
export function webhookReceiver<
  const T extends ComposedTemplate | undefined = undefined,
  E extends Env = Env,
  S extends object = object,
>(options?: ReceiverOptions<T, S>): HonoReceiver<T, E, S> {
  const workers = onWorkers();
  const receiver = adapterReceiver<T, S>(options, {
    env: (globalThis as { process?: { env?: Record<string, unknown> } }).process?.env,
    // On Workers, secrets and bindings arrive with each request (`c.env`).
    ...(workers ? { requestEnv: { whereToSet: WORKERS_HINT } } : {}),
  });

  const handler: HonoHandler<E> = async (c) => {
    const raw = c.req.raw;
    const headers = nodeHeaders(c.env, raw.headers) ?? raw.headers;
    // Read by a validator or middleware through `c.req` already: what Hono's cache holds.
    const read = raw.bodyUsed ? await bodyReadBefore(c) : { body: webBody(raw) };
    const reply = await receiver.handle({
      method: raw.method,
      url: raw.url,
      headers: read.form ? { "content-type": FORM, ...withoutContentType(headers) } : headers,
      body: read.body,
      ...(workers ? { env: c.env as EnvRecord } : {}),
    });
    return c.body(reply.body, reply.status as ContentfulStatusCode, reply.headers);
  };
  return attachable(handler, receiver);
}

const WORKERS_HINT = `in this Worker's environment. Set it with \`wrangler secret put ${SECRET_ENV}\``;

/** Cloudflare Workers says so in `navigator.userAgent`: its secrets arrive with each request. */
function onWorkers(): boolean {
  const agent = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent;
  return agent === "Cloudflare-Workers";
}

/** What Hono's body cache holds at run time: promises, whatever its type says. */
type BodyCache = { arrayBuffer?: unknown; text?: unknown; formData?: Promise<FormData> };

/**
 * A body a validator or middleware already read through `c.req`, from Hono's cache: its bytes,
 * or a form's fields as a urlencoded form (Hono would re-encode a form under a boundary the
 * request's Content-Type does not name, so the Content-Type becomes urlencoded too).
 */
async function bodyReadBefore(c: Context): Promise<{ body: ReceiverRequest["body"]; form?: true }> {
  const cache = c.req.bodyCache as BodyCache;
  try {
    if (cache.formData !== undefined && cache.arrayBuffer === undefined && !cache.text) {
      const fields = new URLSearchParams();
      for (const [key, value] of await cache.formData) {
        if (typeof value === "string") fields.append(key, value);
      }
      return { body: fields.toString(), form: true };
    }
    return { body: new Uint8Array(await c.req.arrayBuffer()) };
  } catch {
    return { body: null }; // read straight from c.req.raw and gone: nothing to wait for
  }
}

const FORM = "application/x-www-form-urlencoded";

/** Headers as a record, without the Content-Type (and the length of a body now re-encoded). */
function withoutContentType(headers: ReceiverHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    if (lower === "content-type" || lower === "content-length" || value === undefined) continue;
    out[lower] = typeof value === "string" ? value : value.join(", ");
  }
  return out;
}

/**
 * On @hono/node-server, the Node request's own header record (`c.env.incoming.headers`), where
 * core finds a header by a property lookup: node-server's lazy web Headers validate the name
 * and scan the raw header list on every `get`, which cost about 6% of a request's CPU for the
 * three core reads. Only while `c.req.raw` still has node-server's headers (a web Headers
 * subclass of its own): a Request built anew by a middleware has plain Headers, read as they are.
 * Elsewhere undefined.
 */
function nodeHeaders(env: unknown, webHeaders: Headers): ReceiverHeaders | undefined {
  const incoming = (env as { incoming?: { headers?: unknown } } | undefined)?.incoming;
  const headers = incoming?.headers;
  if (typeof headers !== "object" || headers === null) return undefined;
  return Object.getPrototypeOf(webHeaders) === Headers.prototype
    ? undefined
    : (headers as ReceiverHeaders);
}
