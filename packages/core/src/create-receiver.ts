import type { BearerResult } from "./check-bearer.js";
import { type ComposedTemplate, keepPromises, readComposed } from "./composed.js";
import { type ReportContext, RequestContext } from "./context.js";
import {
  type BodyFormat,
  decodeBody,
  formatOf,
  isUtf8,
  mediaType,
  unsupportedMediaType,
} from "./decode-body.js";
import { ReportkitError } from "./errors.js";
import { getHeader, type ReceiverHeaders } from "./headers.js";
import { parseWith } from "./parse-report.js";
import { type ReceiverBody, readBody, tooLarge, type WholeRead } from "./read-body.js";
import {
  type Handler,
  type ReceiverOptions,
  type Template,
  validateOptions,
} from "./receiver-options.js";
import {
  asReportkitError,
  errorResponse,
  methodNotAllowed,
  OK,
  refusal,
  unauthorized,
} from "./replies.js";
import type { Report } from "./schemas.js";
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
  /** Why the request was refused or failed (with a handler's own error as `cause`), for logging. */
  error?: ReportkitError;
}

export interface Receiver {
  /** Framework-neutral: adapters translate to and from this. */
  handle(request: ReceiverRequest): Promise<ReceiverResponse>;
  /** Web standard: for Workers, Deno, Bun, Hono and any fetch-style server. */
  fetch(request: Request): Promise<Response>;
  /**
   * The reply for a request whose body the host framework could not read (for example
   * Fastify's own body limit), exactly as `handle` would give it: the method, the token and
   * the content type are still checked first, and `onError` is told.
   */
  refuse(code: RefusalCode, request: Omit<ReceiverRequest, "body">): Promise<ReceiverResponse>;
}

/** Refusals an adapter's framework can hit before core reads the body. */
export type RefusalCode = "payload_too_large" | "body_read_failed" | "invalid_json";

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

  // The pipeline stays synchronous until something really is asynchronous (a body still to
  // be read, a verifier function): an await per stage would cost more than the parse.

  /** Undefined once authenticated; a promise while a verifier function decides. */
  function authenticate(request: ReceiverRequest): Promise<void> | undefined {
    if (config.check === undefined) return;
    const result = config.check(getHeader(request.headers, credentialHeader));
    if (isThenable(result)) return result.then(requireOk, verifierFailed);
    requireOk(result);
  }

  function requireOk(result: BearerResult): void {
    if (result !== "ok") throw unauthorized(result, credentialHeader);
  }

  function receive(request: ReceiverRequest, method: string): MaybePromise<Report> {
    const allowed = template?.method ?? "POST";
    if (method !== allowed) throw methodNotAllowed(method, allowed);
    const authenticating = authenticate(request);
    return authenticating === undefined
      ? afterAuthentication(request)
      : authenticating.then(() => afterAuthentication(request));
  }

  function afterAuthentication(request: ReceiverRequest): MaybePromise<Report> {
    return template === undefined
      ? readPayload(request, "json", parsed)
      : receiveComposed(request, template);
  }

  function receiveComposed(request: ReceiverRequest, compiled: Template): MaybePromise<Report> {
    const fromContent = (content: unknown): Report => {
      const { payload, raw } = readComposed(compiled, request.url, content);
      const report = parsed(payload, compiled.type);
      (report as { raw: Record<string, unknown> }).raw = raw;
      keepPromises(compiled, report as unknown as Record<string, unknown>);
      return report;
    };
    return compiled.readsBody
      ? readPayload(request, compiled.format, fromContent)
      : fromContent(undefined);
  }

  /** Reads and decodes the body, then hands it to `next` in the same step (one await, not three). */
  function readPayload<T>(
    request: ReceiverRequest,
    fallback: BodyFormat,
    next: (payload: unknown) => T,
  ): MaybePromise<T> {
    const contentType = getHeader(request.headers, "content-type");
    const type = mediaType(contentType);
    const format = type === "" ? fallback : formatOf(type);
    if (format === undefined) throw unsupportedMediaType(type);
    const { body } = request;
    let whole: WholeRead;
    // A body still to be read is refused on its declared size before a byte is read; text or
    // bytes already in hand are measured exactly by readBody.
    if (typeof body !== "string" && !(body instanceof Uint8Array)) {
      const declared = getHeader(request.headers, "content-length");
      if (declared !== undefined) {
        if (Number(declared) > limit) throw tooLarge(limit);
        whole = format !== "multipart" && isUtf8(contentType) ? "text" : "bytes";
      }
    }
    const content = readBody(body, limit, whole);
    // No closure on the usual path, where the body is already in hand.
    return isThenable(content)
      ? content.then((read) => next(decodeBody(read, format, contentType)))
      : next(decodeBody(content, format, contentType));
  }

  function parsed(payload: unknown, kind?: "delivery" | "call"): Report {
    const result = parseWith(payload, readWallClock, kind);
    if (!result.ok) throw result.error;
    return result.report;
  }

  async function handle(request: ReceiverRequest): Promise<ReceiverResponse> {
    const ctx = contextOf(request);
    let report: Report;
    try {
      const received = receive(request, ctx.method);
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
      body: request,
    });
    return new Response(response.body, { status: response.status, headers: response.headers });
  }

  /** Never throws, whatever an adapter passes: a reply needs a context even for a bad request. */
  function contextOf(request: ReceiverRequest): RequestContext {
    const { method, url, headers } = (request ?? {}) as Partial<ReceiverRequest>;
    return new RequestContext(
      typeof method === "string" ? method.toUpperCase() : "",
      typeof url === "string" ? url : "",
      typeof headers === "object" && headers !== null ? headers : {},
      credentialHeader,
    );
  }

  function refuse(
    code: RefusalCode,
    request: Omit<ReceiverRequest, "body">,
  ): Promise<ReceiverResponse> {
    // The refusal stands where core would have read the body, after method, auth and type.
    return handle({ ...request, body: failedBody(refusal(code, limit)) });
  }

  return { handle, fetch, refuse };
}

type MaybePromise<T> = T | Promise<T>;

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

/** A body whose reading fails with `error`, as the framework's read of it did. */
function failedBody(error: ReportkitError): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }),
  };
}
