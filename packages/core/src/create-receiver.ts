import {
  type BearerCheck,
  type BearerResult,
  checkBearer,
  type TokenOption,
} from "./check-bearer.js";
import {
  type CompiledTemplate,
  type ComposedCallReport,
  type ComposedDeliveryReport,
  type ComposedTemplate,
  compileTemplate,
  keepPromises,
  readComposed,
} from "./composed.js";
import { type ReportContext, RequestContext } from "./context.js";
import {
  type BodyFormat,
  decodeBody,
  formatOf,
  mediaType,
  unsupportedMediaType,
} from "./decode-body.js";
import { ReportkitError } from "./errors.js";
import { getHeader, type ReceiverHeaders } from "./headers.js";
import { parseWith } from "./parse-report.js";
import { type ReceiverBody, readBody, tooLarge } from "./read-body.js";
import type { CallReport, DeliveryReport, Report } from "./schemas.js";
import { wallClockReader } from "./wall-clock.js";

/** A request as any adapter can describe it. */
export interface ReceiverRequest {
  method: string;
  /** Path and query ("/webhooks?x=1"), or an absolute URL. */
  url: string;
  headers: ReceiverHeaders;
  body?: ReceiverBody;
}

/** The reply for the adapter to send as is. */
export interface ReceiverResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: string;
}

export interface Receiver {
  /** Framework-neutral: adapters translate to and from this. */
  handle(request: ReceiverRequest): Promise<ReceiverResponse>;
  /** Web standard: for Workers, Deno, Bun, Hono and any fetch-style server. */
  fetch(request: Request): Promise<Response>;
  /**
   * The reply for a request the host framework refused before reportkit saw its body (for
   * example Fastify's own body limit), exactly as `handle` would give it; `onError` is told.
   */
  refuse(code: RefusalCode, request: Omit<ReceiverRequest, "body">): ReceiverResponse;
}

/** Refusals an adapter's framework can hit before core reads the body. */
export type RefusalCode = "payload_too_large" | "body_read_failed" | "invalid_json";

export type Handler<R> = (report: R, ctx: ReportContext) => unknown;

/** The report `onDelivery` receives: typed by the template when there is one. */
export type DeliveryReportFor<T> = T extends ComposedTemplate
  ? ComposedDeliveryReport<T>
  : DeliveryReport;
/** The report `onCall` receives: typed by the template when there is one. */
export type CallReportFor<T> = T extends ComposedTemplate ? ComposedCallReport<T> : CallReport;

export interface ReceiverOptions<T extends ComposedTemplate | undefined = undefined> {
  /**
   * The bearer token the provider sends: one string, several (during a rotation), or a
   * function that decides. Required unless `auth: false`.
   */
  token?: TokenOption;
  /** Pass `false` to accept requests without any credential. Not recommended. */
  auth?: false;
  /**
   * A header whose whole value is the token (composed webhooks may send e.g. `x-api-key`),
   * instead of `Authorization: Bearer <token>`.
   */
  header?: string;
  /** Called with each SMS delivery report; the provider gets 200 once it returns/resolves. */
  onDelivery?: T extends { type: "call" } ? never : Handler<DeliveryReportFor<T>>;
  /** Called with each call report; the provider gets 200 once it returns/resolves. */
  onCall?: T extends { type: "delivery" } ? never : Handler<CallReportFor<T>>;
  /** Observes every refused request and failed handler. Cannot change the reply. */
  onError?: (error: ReportkitError, ctx: ReportContext) => unknown;
  /**
   * The composed webhook's template, pasted from the provider's panel: the receiver then reads
   * the customer's own keys from the query, path and body, with the template's method.
   */
  composed?: T;
  /** IANA zone for wall-clock times that carry none. Default "UTC". */
  timeZone?: string;
  /** Largest body accepted, in bytes. Default 65536. */
  maxBodyBytes?: number;
}

const DEFAULT_MAX_BODY_BYTES = 65_536;
const JSON_HEADERS = Object.freeze({ "content-type": "application/json" });
const OK: ReceiverResponse = Object.freeze({
  status: 200,
  headers: JSON_HEADERS,
  body: '{"ok":true}',
});
const CHALLENGE = 'Bearer realm="reportkit"';
const CHALLENGE_INVALID = 'Bearer realm="reportkit", error="invalid_token"';
// Headers an error reply carries besides content-type (a challenge, an Allow list).
const replyHeaders = new WeakMap<ReportkitError, Readonly<Record<string, string>>>();
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/**
 * Creates the receiver: one object whose `handle` (or `fetch`) authenticates, reads,
 * validates and dispatches one pushed report, and answers 200 only once the handler
 * succeeded, so a failure is always retried by the provider.
 *
 * @example
 * const receiver = createReceiver({
 *   token: process.env.REPORTKIT_TOKEN,
 *   onDelivery(report) { console.log(report.id, report.status, report.deliveredAt) },
 * });
 * export default { fetch: (request: Request) => receiver.fetch(request) };
 */
export function createReceiver<const T extends ComposedTemplate | undefined = undefined>(
  options: ReceiverOptions<T>,
): Receiver {
  const config = validateOptions(options as ReceiverOptions<ComposedTemplate | undefined>);
  const { template } = config;
  const { onDelivery, onCall, onError, limit, credentialHeader } = config;
  const readWallClock = wallClockReader(config.timeZone);

  function reply(error: ReportkitError, ctx: ReportContext): ReceiverResponse {
    if (onError !== undefined) {
      try {
        const observed = onError(error, ctx);
        if (isThenable(observed)) observed.then(undefined, ignore);
      } catch {
        // onError is an observer: its failure must not change the reply.
      }
    }
    return errorResponse(error);
  }

  // The pipeline stays synchronous until something really is asynchronous (a stream, a
  // verifier function, a multipart body): an await per stage would cost more than the parse.

  function authenticate(request: ReceiverRequest): MaybePromise<void> {
    if (config.check === undefined) return;
    const result = config.check(getHeader(request.headers, credentialHeader));
    return isThenable(result) ? result.then(authenticated, verifierFailed) : authenticated(result);
  }

  function authenticated(result: BearerResult): void {
    if (result !== "ok") throw unauthorized(result, credentialHeader);
  }

  function receive(request: ReceiverRequest): MaybePromise<Report> {
    const method = request.method.toUpperCase();
    const allowed = template?.method ?? "POST";
    if (method !== allowed) throw methodNotAllowed(method, allowed);
    return then(authenticate(request), () =>
      template === undefined
        ? then(readPayload(request, "json"), (payload) => parsed(payload))
        : receiveComposed(request, template),
    );
  }

  function receiveComposed(request: ReceiverRequest, compiled: Template): MaybePromise<Report> {
    const body = compiled.readsBody ? readPayload(request, compiled.format) : undefined;
    return then(body, (content) => {
      const { payload, raw } = readComposed(compiled, request.url, content);
      const report = parsed(payload, compiled.type);
      (report as { raw: Record<string, unknown> }).raw = raw;
      keepPromises(compiled, report as unknown as Record<string, unknown>);
      return report;
    });
  }

  function readPayload(request: ReceiverRequest, fallback: BodyFormat): MaybePromise<unknown> {
    const contentType = getHeader(request.headers, "content-type");
    const type = mediaType(contentType);
    const format = type === "" ? fallback : formatOf(type);
    if (format === undefined) throw unsupportedMediaType(type);
    const declared = getHeader(request.headers, "content-length");
    if (declared !== undefined && Number(declared) > limit) throw tooLarge(limit);
    return then(readBody(request.body, limit), (content) =>
      decodeBody(content, format, contentType),
    );
  }

  function parsed(payload: unknown, kind?: "delivery" | "call"): Report {
    const result = parseWith(payload, readWallClock, kind);
    if (!result.ok) throw result.error;
    return result.report;
  }

  async function handle(request: ReceiverRequest): Promise<ReceiverResponse> {
    const ctx = new RequestContext(
      request.method.toUpperCase(),
      request.url,
      request.headers,
      credentialHeader,
    );
    let report: Report;
    try {
      const received = receive(request);
      report = isThenable(received) ? await received : received;
    } catch (error) {
      return reply(asReportkitError(error), ctx);
    }
    const handler = (report.type === "delivery" ? onDelivery : onCall) as
      | Handler<Report>
      | undefined;
    if (handler === undefined) return OK;
    try {
      const result = handler(report, ctx);
      if (isThenable(result)) await result;
    } catch (cause) {
      const error = new ReportkitError(
        "handler_failed",
        "The report handler failed; the provider will retry this report.",
        { cause },
      );
      return reply(error, ctx);
    }
    return OK;
  }

  async function fetch(request: Request): Promise<Response> {
    const response = await handle({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: request.body,
    });
    return new Response(response.body, { status: response.status, headers: response.headers });
  }

  function refuse(code: RefusalCode, request: Omit<ReceiverRequest, "body">): ReceiverResponse {
    const ctx = new RequestContext(
      request.method.toUpperCase(),
      request.url,
      request.headers,
      credentialHeader,
    );
    return reply(refusal(code, limit), ctx);
  }

  return { handle, fetch, refuse };
}

type Template = CompiledTemplate & { readsBody: boolean; format: BodyFormat };

interface Config {
  template: Template | undefined;
  check: BearerCheck | undefined;
  credentialHeader: string;
  onDelivery: Handler<DeliveryReport> | undefined;
  onCall: Handler<CallReport> | undefined;
  onError: ReceiverOptions["onError"];
  timeZone: string;
  limit: number;
}

function validateOptions(options: ReceiverOptions<ComposedTemplate | undefined>): Config {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("reportkit: createReceiver(options) needs an options object.");
  }
  const { token, auth, header, onDelivery, onCall, onError } = options;
  if (auth !== undefined && auth !== false) {
    throw new TypeError("reportkit: `auth` can only be `false` (to turn authentication off).");
  }
  if (auth === false && token !== undefined) {
    throw new TypeError("reportkit: pass either `token` or `auth: false`, not both.");
  }
  if (auth !== false) validateToken(token);
  if (
    header !== undefined &&
    (typeof header !== "string" || !HEADER_NAME.test(header.toLowerCase()))
  ) {
    throw new TypeError(
      `reportkit: \`header\` must be a header name such as "x-api-key", got ${JSON.stringify(header)}.`,
    );
  }
  for (const [name, fn] of [
    ["onDelivery", onDelivery],
    ["onCall", onCall],
    ["onError", onError],
  ] as const) {
    if (fn !== undefined && typeof fn !== "function") {
      throw new TypeError(`reportkit: \`${name}\` must be a function.`);
    }
  }
  if (onDelivery === undefined && onCall === undefined) {
    throw new TypeError(
      "reportkit: give at least one handler, `onDelivery(report)` for SMS delivery reports or `onCall(report)` for call reports.",
    );
  }
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(limit) || limit <= 0) {
    throw new TypeError(
      `reportkit: \`maxBodyBytes\` must be a positive whole number of bytes, got ${String(options.maxBodyBytes)}.`,
    );
  }
  const credentialHeader = header?.toLowerCase() ?? "authorization";
  const compiled = options.composed === undefined ? undefined : compileTemplate(options.composed);
  const handlerFor = compiled?.type === "call" ? onCall : onDelivery;
  if (compiled !== undefined && handlerFor === undefined) {
    const name = compiled.type === "call" ? "onCall" : "onDelivery";
    throw new TypeError(
      `reportkit: the composed template sends ${compiled.type} reports; give \`${name}\`.`,
    );
  }
  return {
    template:
      compiled === undefined
        ? undefined
        : {
            ...compiled,
            readsBody: compiled.method !== "GET" && compiled.sources.some((s) => s.from === "body"),
            format: options.composed?.format === "form" ? "urlencoded" : "json",
          },
    check:
      auth === false
        ? undefined
        : checkBearer(token as TokenOption, header === undefined ? undefined : credentialHeader),
    credentialHeader,
    onDelivery: onDelivery as Handler<DeliveryReport> | undefined,
    onCall: onCall as Handler<CallReport> | undefined,
    onError,
    timeZone: options.timeZone ?? "UTC",
    limit,
  };
}

function validateToken(token: unknown): void {
  const hint =
    "Pass the token the provider sends (`token`, or the REPORTKIT_TOKEN environment variable where the adapter reads it), several during a rotation, or a function; or `auth: false` to accept unauthenticated requests (not recommended).";
  if (token === undefined || token === null) {
    throw new TypeError(`reportkit: no token given. ${hint}`);
  }
  if (typeof token === "function") return;
  const list = typeof token === "string" ? [token] : token;
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError(
      `reportkit: \`token\` must be a string, an array of strings or a function. ${hint}`,
    );
  }
  list.forEach((t: unknown, i: number) => {
    if (typeof t !== "string" || t.trim() === "") {
      const where = Array.isArray(token) ? `token[${i}]` : "token";
      throw new TypeError(`reportkit: \`${where}\` is empty or not a string. ${hint}`);
    }
  });
}

function unauthorized(result: Exclude<BearerResult, "ok">, header: string): ReportkitError {
  const where =
    header === "authorization" ? "an Authorization: Bearer <token> header" : `the ${header} header`;
  const error = new ReportkitError(
    "unauthorized",
    result === "missing"
      ? `Missing credentials: send the webhook's token in ${where}.`
      : `The token in ${where} is not one this receiver accepts.`,
  );
  const challenge = result === "missing" ? CHALLENGE : CHALLENGE_INVALID;
  replyHeaders.set(error, { ...JSON_HEADERS, "www-authenticate": challenge });
  return error;
}

function methodNotAllowed(method: string, allowed: string): ReportkitError {
  const error = new ReportkitError(
    "method_not_allowed",
    `Method ${method.slice(0, 20)} is not allowed here; the provider pushes reports with ${allowed}.`,
  );
  replyHeaders.set(error, { ...JSON_HEADERS, allow: allowed });
  return error;
}

function refusal(code: RefusalCode, limit: number): ReportkitError {
  if (code === "payload_too_large") return tooLarge(limit);
  if (code === "invalid_json") {
    return new ReportkitError(
      "invalid_json",
      "The body is not valid JSON. Send the report as a JSON object.",
    );
  }
  return new ReportkitError(
    "body_read_failed",
    "The request body could not be read to the end (the connection failed or was aborted).",
  );
}

function asReportkitError(error: unknown): ReportkitError {
  if (error instanceof ReportkitError) return error;
  return new ReportkitError(
    "internal_error",
    "The receiver failed unexpectedly; the provider will retry this report.",
    {
      cause: error,
    },
  );
}

function errorResponse(error: ReportkitError): ReceiverResponse {
  const body = JSON.stringify({ ok: false, error: { code: error.code, message: error.message } });
  return { status: error.status, headers: replyHeaders.get(error) ?? JSON_HEADERS, body };
}

type MaybePromise<T> = T | Promise<T>;

/** Runs `next` now for a plain value, or once a promise settles. */
function then<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return isThenable(value) ? (value as Promise<T>).then(next) : next(value as T);
}

function verifierFailed(cause: unknown): never {
  throw new ReportkitError(
    "token_check_failed",
    "The token verifier failed; the provider will retry this report.",
    { cause },
  );
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === "function"
  );
}

function ignore(): void {}
