import { type ComposedRequest, isComposedRequest } from "./composed-request.js";
import { multipartBody } from "./form-body.js";

/**
 * Anything with a web-standard `fetch(request)`: a Hono app, `createReceiver(...)`'s
 * receiver, a Workers module.
 */
export interface FetchTarget {
  fetch(request: Request): Response | Promise<Response>;
}

/** Anything with Fastify's `inject`: a Fastify instance (its plugins are loaded first). */
export interface InjectTarget {
  inject(request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    payload?: string;
  }): PromiseLike<{
    statusCode: number;
    headers: Record<string, string | string[] | number | undefined>;
    body: string;
  }>;
}

/**
 * A Node request listener `(req, res)`: an Express app (4 or 5), or any handler you would pass
 * to `http.createServer`. It is served on an ephemeral port for the one request.
 */
// `never` parameters: any two-argument function fits, with no dependency on @types/node.
export type NodeRequestListener = (request: never, response: never) => unknown;

/** Where `sendReport` sends: a URL, or an app it can call without you starting a server. */
export type ReportTarget = string | URL | InjectTarget | FetchTarget | NodeRequestListener;

/**
 * A payload (as from `deliveryPayload()`, `callPayload()`, `click2CallPayload()`,
 * `unsubscribePayload()`, `eventPayload()`, `contactUpdatePayload()`, `linkVisitPayload()`), a
 * raw body, or a `composedRequest(...)`.
 */
export type ReportPayload = object | string | ComposedRequest;

/** The credential to send: the webhook's `secret` (or `token`, its old name). */
export type SendCredential =
  | {
      /**
       * The webhook's secret, sent as `Authorization: Bearer <secret>` (or in `header`), as the
       * provider sends it; `null` sends no credential, to test a refusal or a receiver with
       * `secret: false`.
       */
      secret: string | null;
      token?: undefined;
    }
  | {
      /** @deprecated The old name of `secret`. */
      token: string | null;
      secret?: undefined;
    };

export type SendReportOptions = SendCredential & SendReportSettings;

export interface SendReportSettings {
  /**
   * How a payload object is encoded, as the provider may send it: "json" (the default),
   * "form" (multipart/form-data) or "urlencoded". Every form value is a string. Ignored for a
   * string payload (sent as JSON text) and a composed request (sent as built).
   */
  format?: "json" | "form" | "urlencoded";
  /**
   * The path (and query) for an app target. Default "/webhooks". A URL target is used as
   * given; a composed request always goes to its own path and query (only the target's origin
   * is used, as the receiver ignores the template's scheme and host).
   */
  path?: string;
  /** Send the secret whole in this header (e.g. "x-api-key"), as the receiver's `header` option. */
  header?: string;
  /** More request headers; they win over the defaults (set "content-type" to test a 415). */
  headers?: Record<string, string>;
}

/** The receiver's reply. */
export interface SentReport {
  status: number;
  headers: Headers;
  /** The body as text. */
  body: string;
  /** The body parsed, when the reply is JSON (reportkit's `{ ok, error? }`); else undefined. */
  json: unknown;
}

/** One HTTP request, ready to send. */
interface OutgoingRequest {
  method: string;
  /** Path and query: a composed request's own, else the `path` option's, else "/webhooks". */
  path: string;
  /** Whether `path` is a composed request's own (it then applies to a URL target too). */
  composed: boolean;
  headers: Record<string, string>;
  body: string | undefined;
}

const DEFAULT_PATH = "/webhooks";

/**
 * Sends one report to a receiver the way the provider does, and gives back its reply. The
 * target is a URL, an Express app (served on an ephemeral port, then closed), a Fastify
 * instance (`inject`, no socket) or a Hono app (`fetch`, no socket); an app gets the request
 * on `path` ("/webhooks" unless told otherwise).
 *
 * @example
 * import { deliveryPayload, sendReport } from "@reportkit/testing";
 *
 * const reply = await sendReport(app, deliveryPayload({ status: "UNDELIV" }), { secret: "test-secret" });
 * expect(reply.status).toBe(200);
 * expect(reply.json).toEqual({ ok: true });
 *
 * await sendReport("http://127.0.0.1:3000/webhooks", callPayload(), { secret, format: "form" });
 */
export async function sendReport(
  target: ReportTarget,
  payload: ReportPayload,
  options: SendReportOptions,
): Promise<SentReport> {
  if (
    typeof options !== "object" ||
    options === null ||
    (!("secret" in options) && !("token" in options))
  ) {
    throw new TypeError(
      'sendReport: give the webhook\'s secret to send as { secret: "…" } (or { secret: null } to send none).',
    );
  }
  if (options.secret !== undefined && options.token !== undefined) {
    throw new TypeError("sendReport: give `secret` or `token` (its old name), not both.");
  }
  const request = buildRequest(payload, options);
  if (typeof target === "string" || target instanceof URL) return viaFetch(target, request);
  if (typeof target === "object" && target !== null) {
    if (typeof (target as InjectTarget).inject === "function") {
      return viaInject(target as InjectTarget, request);
    }
    if (typeof (target as FetchTarget).fetch === "function") {
      return viaFetchTarget(target as FetchTarget, request);
    }
  }
  if (typeof target === "function") return viaListener(target, request);
  throw new TypeError(
    "sendReport: the target must be a URL, an Express app, a Fastify instance, a Hono app (or anything with fetch(request)), or a Node request listener.",
  );
}

function buildRequest(payload: ReportPayload, options: SendReportOptions): OutgoingRequest {
  const headers: Record<string, string> = { accept: "*/*" };
  const { header, format = "json" } = options;
  const secret = options.secret !== undefined ? options.secret : (options.token ?? null);
  const name = options.secret !== undefined ? "secret" : "token";
  let method = "POST";
  let path = options.path ?? DEFAULT_PATH;
  let body: string | undefined;

  if (isComposedRequest(payload)) {
    method = payload.method;
    const url = new URL(payload.url, "http://localhost");
    path = `${url.pathname}${url.search}`;
    Object.assign(headers, payload.headers);
    body = payload.body;
  } else if (typeof payload === "string") {
    headers["content-type"] = "application/json";
    body = payload;
  } else if (typeof payload === "object" && payload !== null) {
    ({ body, type: headers["content-type"] } = encode(payload, format));
  } else {
    throw new TypeError(
      "sendReport: the payload must be an object (deliveryPayload(), unsubscribePayload(), eventPayload(), …), a string body, or a composedRequest(...).",
    );
  }

  if (secret !== null) {
    if (typeof secret !== "string" || secret === "") {
      throw new TypeError(
        `sendReport: \`${name}\` must be a non-empty string, or null to send none.`,
      );
    }
    if (header === undefined) headers.authorization = `Bearer ${secret}`;
    else headers[header.toLowerCase()] = secret;
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    headers[name.toLowerCase()] = value;
  }
  return { method, path, composed: isComposedRequest(payload), headers, body };
}

function encode(payload: object, format: string): { body: string; type: string } {
  if (format === "json") return { body: JSON.stringify(payload), type: "application/json" };
  // A form's values are text: a nested object would be sent as "[object Object]".
  const nested = Object.entries(payload).find(([, v]) => typeof v === "object" && v !== null);
  if (nested !== undefined && (format === "form" || format === "urlencoded")) {
    throw new TypeError(
      `sendReport: format "${format}" sends each field as text, and "${nested[0]}" is an object; send this payload as JSON (the default), as the provider pushes events and contact updates.`,
    );
  }
  const fields = Object.entries(payload)
    .filter(([, value]) => value !== undefined && value !== null)
    .map(([key, value]) => [key, String(value)] as [string, string]);
  if (format === "urlencoded") {
    return {
      body: new URLSearchParams(fields).toString(),
      type: "application/x-www-form-urlencoded",
    };
  }
  if (format === "form") return multipartBody(fields);
  throw new TypeError(
    `sendReport: format must be "json", "form" or "urlencoded", got ${JSON.stringify(format)}.`,
  );
}

async function reply(response: Response): Promise<SentReport> {
  const body = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body,
    json: jsonOf(response.headers, body),
  };
}

function jsonOf(headers: Headers, body: string): unknown {
  if (!/[/+]json\b/i.test(headers.get("content-type") ?? "")) return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

function init(request: OutgoingRequest): RequestInit {
  return {
    method: request.method,
    headers: request.headers,
    body: request.body,
    // The provider counts a 3xx as a failure; it is the reply to look at, not its target.
    redirect: "manual",
  };
}

async function viaFetch(target: string | URL, request: OutgoingRequest): Promise<SentReport> {
  const url = request.composed ? new URL(request.path, target) : new URL(target);
  return reply(await fetch(url, init(request)));
}

async function viaFetchTarget(target: FetchTarget, request: OutgoingRequest): Promise<SentReport> {
  const response = await target.fetch(
    new Request(new URL(request.path, "http://localhost"), init(request)),
  );
  return reply(response);
}

async function viaInject(target: InjectTarget, request: OutgoingRequest): Promise<SentReport> {
  const response = await target.inject({
    method: request.method,
    url: request.path,
    headers: request.headers,
    ...(request.body === undefined ? {} : { payload: request.body }),
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, String(one));
  }
  return {
    status: response.statusCode,
    headers,
    body: response.body,
    json: jsonOf(headers, response.body),
  };
}

/** Serves the listener on an ephemeral port for this one request, then closes the server. */
async function viaListener(
  listener: NodeRequestListener,
  request: OutgoingRequest,
): Promise<SentReport> {
  // Loaded here only: every other target works without node: modules (Workers, Deno, Bun).
  const { createServer } = await import("node:http");
  const server = createServer(listener as Parameters<typeof createServer>[0] & {});
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  try {
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    const response = await fetch(`http://127.0.0.1:${port}${request.path}`, init(request));
    return await reply(response);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
