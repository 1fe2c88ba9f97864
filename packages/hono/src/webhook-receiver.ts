import type { ComposedTemplate, ReceiverOptions } from "@reportkit/core";
import {
  type Attachable,
  adapterReceiver,
  attachable,
  type EnvRecord,
  type ReceiverBody,
  type ReceiverHeaders,
  type ReceiverResponse,
  SECRET_ENV,
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

  // Not an async function: one promise (core's, while it reads the body) instead of three.
  const handler: HonoHandler<E> = (c) => {
    const raw = c.req.raw;
    const toResponse = (reply: ReceiverResponse) =>
      c.body(reply.body, reply.status as ContentfulStatusCode, reply.headers);
    const respond = (body: ReceiverBody) => {
      const reply = receiver.respond({
        method: raw.method,
        url: raw.url,
        headers: nodeHeaders(c.env, raw.headers) ?? raw.headers,
        body,
        ...(workers ? { env: c.env as EnvRecord } : {}),
      });
      return reply instanceof Promise ? reply.then(toResponse) : Promise.resolve(toResponse(reply));
    };
    // The Request itself: core reads it whole when its length is declared (on
    // @hono/node-server several times faster than `raw.body`, a stream), else streams it.
    return raw.bodyUsed ? bodyReadBefore(c).then(respond) : respond(raw);
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

/** A body a validator or middleware already read through `c.req`, from Hono's cache. */
async function bodyReadBefore(c: Context): Promise<ReceiverBody> {
  const cache = c.req.bodyCache as BodyCache;
  try {
    if (cache.formData !== undefined && cache.arrayBuffer === undefined && !cache.text) {
      // Hono would re-encode the form under a boundary the request's Content-Type does not name.
      const fields: [string, string][] = [];
      for (const [key, value] of await cache.formData) {
        if (typeof value === "string") fields.push([key, value]);
      }
      return Object.fromEntries(fields);
    }
    return new Uint8Array(await c.req.arrayBuffer());
  } catch {
    return undefined; // read straight from c.req.raw and gone: nothing to wait for
  }
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
