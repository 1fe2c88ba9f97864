import type { BearerResult } from "./check-bearer.js";
import { type ComposedTemplate, keepPromises, readComposed } from "./composed.js";
import { type ReportContext, RequestContext } from "./context.js";
import {
  type BodyFormat,
  decodeBody,
  formatOf,
  mediaType,
  readsAsText,
  unsupportedMediaType,
} from "./decode-body.js";
import { defaultDedupeKey } from "./dedupe-key.js";
import type { ClaimResult } from "./dedupe-store.js";
import { ReportkitError } from "./errors.js";
import { getHeader, type ReceiverHeaders } from "./headers.js";
import { parseWith } from "./parse-report.js";
import { type BodyContent, type ReceiverBody, readBody } from "./read-body.js";
import {
  type BodyDone,
  type BodyHeaders,
  type NodeStyleStream,
  readNodeStream,
} from "./read-stream.js";
import { receiverLog } from "./receiver-log.js";
import {
  type CallReportFor,
  type DeliveryReportFor,
  type ErrorHandler,
  type Handler,
  type ReceiverOptions,
  type Template,
  validateOptions,
} from "./receiver-options.js";
import {
  asReportkitError,
  DUPLICATE,
  errorResponse,
  methodNotAllowed,
  OK,
  QUEUED,
  refusal,
  retryLater,
  tooLarge,
  unauthorized,
} from "./replies.js";
import type { ReportQueue } from "./report-queue.js";
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

export interface Receiver<T extends ComposedTemplate | undefined = undefined> {
  /** Framework-neutral: adapters translate to and from this. */
  handle(request: ReceiverRequest): Promise<ReceiverResponse>;
  /**
   * `handle` without the promise when none is needed: the reply itself when every step was
   * synchronous (a body already read, the memory dedupe store, a handler that returns a
   * value), else a promise of it. Never throws. For adapters whose framework can answer
   * synchronously; the reply is the same as `handle`'s.
   *
   * @example
   * const reply = receiver.respond(request);
   * if (reply instanceof Promise) reply.then(send); else send(reply);
   */
  respond(request: ReceiverRequest): ReceiverResponse | Promise<ReceiverResponse>;
  /** Web standard: for Workers, Deno, Bun, Hono and any fetch-style server. */
  fetch(request: Request): Promise<Response>;
  /**
   * Reads a Node-style request stream (or the one a framework hook put in its place) whole, for
   * an adapter whose framework hands its body parsers the stream and a callback: text when this
   * receiver reads the Content-Type as UTF-8, else bytes, with `maxBodyBytes` held against the
   * declared length and the bytes as they arrive, and the bytes received against the declared
   * length. Pass what `done` gets to `respond` as the body; an error is a ReportkitError,
   * `payload_too_large` or `body_read_failed`, for `refuse`.
   *
   * @example
   * fastify.addContentTypeParser("*", (request, payload, done) =>
   *   receiver.readStream(payload, request.headers, done),
   * );
   */
  readStream(stream: NodeStyleStream, headers: BodyHeaders, done: BodyDone): void;
  /**
   * The reply for a request whose body the host framework could not read (for example
   * Fastify's own body limit), exactly as `handle` would give it: the method, the token and
   * the content type are still checked first, and `onError` is told.
   */
  refuse(code: RefusalCode, request: Omit<ReceiverRequest, "body">): Promise<ReceiverResponse>;
  /**
   * Attaches the SMS delivery report handler (one per receiver: a second one throws). Until a
   * handler of either kind is attached, reports get 503 `no_handler`, so none is lost while
   * the app starts.
   */
  onDelivery(handler: Handler<DeliveryReportFor<T>>): this;
  /** Attaches the call report handler (one per receiver). */
  onCall(handler: Handler<CallReportFor<T>>): this;
  /** Attaches the observer of refusals and failures (one per receiver); the default logging then stops. */
  onError(handler: ErrorHandler): this;
}

/** Refusals an adapter's framework can hit before core reads the body. */
export type RefusalCode = "payload_too_large" | "body_read_failed" | "invalid_json";

/**
 * Creates the receiver: one object whose `handle` (or `fetch`) authenticates, reads,
 * validates and dispatches one pushed report, and answers 200 only once the handler
 * succeeded, so a failure is always retried by the provider; a retry of a report already
 * processed is answered 200 `duplicate` without running the handler again (`dedupe`).
 *
 * @example
 * const receiver = createReceiver({ token: process.env.REPORTKIT_TOKEN })
 *   .onDelivery((report) => console.log(report.id, report.status, report.deliveredAt));
 * export default { fetch: (request: Request) => receiver.fetch(request) };
 */
export function createReceiver<const T extends ComposedTemplate | undefined = undefined>(
  options?: ReceiverOptions<T>,
): Receiver<T> {
  const config = validateOptions(
    options as ReceiverOptions<ComposedTemplate | undefined> | undefined,
  );
  const { template, limit, credentialHeader, dedupe, deadlineMs, queue } = config;
  const keyOf = config.dedupeKey ?? defaultDedupeKey;
  const handlers = {
    onDelivery: config.onDelivery,
    onCall: config.onCall,
    onError: config.onError,
  };
  const log = config.logger === false ? undefined : receiverLog(config.logger ?? console);
  const readWallClock = wallClockReader(config.timeZone);
  const owners = ownerIds();

  function reply(error: ReportkitError, ctx: ReportContext): ReceiverResponse {
    const { onError } = handlers;
    if (onError !== undefined) {
      try {
        const observed = onError(error, ctx);
        if (isThenable(observed)) observed.then(undefined, ignore);
      } catch {
        // onError is an observer: its failure must not change the reply.
      }
    }
    if (log !== undefined && (onError === undefined || config.logger !== undefined)) log(error);
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
    let content: BodyContent | Promise<BodyContent>;
    if (typeof body === "string" || body instanceof Uint8Array) {
      // Text or bytes already in hand are measured exactly by readBody.
      content = readBody(body, limit);
    } else {
      // A body still to be read is refused on its declared size before a byte is read.
      const declared = getHeader(request.headers, "content-length");
      if (Number(declared) > limit) throw tooLarge(limit);
      content = readBody(body, limit, declared, readsAsText(contentType));
    }
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

  /**
   * The reply, as soon as it is known: the response itself when every step was synchronous
   * (a body in hand, the memory store, a handler returning a value), a promise otherwise.
   * Never throws: every failure is a reply.
   */
  function respond(request: ReceiverRequest): MaybePromise<ReceiverResponse> {
    const ctx = contextOf(request);
    let received: MaybePromise<Report>;
    try {
      received = receive(request, ctx.method);
    } catch (error) {
      return reply(asReportkitError(error), ctx);
    }
    if (!isThenable(received)) return dispatch(received, ctx);
    return (received as Promise<Report>).then(
      (report) => dispatch(report, ctx),
      (error: unknown) => reply(asReportkitError(error), ctx),
    );
  }

  function handle(request: ReceiverRequest): Promise<ReceiverResponse> {
    try {
      return Promise.resolve(respond(request));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** From a valid report to the reply: queue, or dedupe claim, handler and outcome. */
  function dispatch(report: Report, ctx: RequestContext): MaybePromise<ReceiverResponse> {
    let key: string | undefined;
    try {
      key = identify(report);
    } catch (error) {
      return reply(asReportkitError(error), ctx);
    }
    ctx.dedupeKey = key;
    if (queue !== undefined) return enqueue(report, key, ctx);
    const handler = (report.type === "delivery" ? handlers.onDelivery : handlers.onCall) as
      | Handler<Report>
      | undefined;
    if (handler === undefined) {
      // Before any handler is attached the app is still starting: the provider retries later.
      // Once one is, a kind nobody handles is acknowledged, as the app chose.
      if (handlers.onDelivery !== undefined || handlers.onCall !== undefined) return OK;
      return reply(noHandler(), ctx);
    }
    if (key === undefined || dedupe === undefined) return run(handler, report, ctx, undefined);
    const claim = { key, owner: owners.next() };
    let claimed: MaybePromise<ClaimResult>;
    try {
      claimed = dedupe.claim(claim.key, claim.owner);
    } catch (cause) {
      return reply(dedupeUnavailable(cause), ctx);
    }
    if (!isThenable(claimed)) return afterClaim(claimed, handler, report, ctx, claim);
    return Promise.resolve(claimed).then(
      (result) => afterClaim(result, handler, report, ctx, claim),
      (cause: unknown) => reply(dedupeUnavailable(cause), ctx),
    );
  }

  function afterClaim(
    claimed: ClaimResult,
    handler: Handler<Report>,
    report: Report,
    ctx: RequestContext,
    claim: Claim,
  ): MaybePromise<ReceiverResponse> {
    if (claimed === "claimed") return run(handler, report, ctx, claim);
    if (claimed === "done") return DUPLICATE;
    return reply(inProgress(), ctx);
  }

  function identify(report: Report): string | undefined {
    const key = keyOf(report);
    if (key === undefined || (typeof key === "string" && key !== "")) return key;
    throw new TypeError(
      `reportkit: \`dedupeKey\` must return a non-empty string, or undefined to not deduplicate the report; it returned ${JSON.stringify(key)}.`,
    );
  }

  /** Runs the handler; with a claim, marks the key done on success and frees it on failure. */
  function run(
    handler: Handler<Report>,
    report: Report,
    ctx: RequestContext,
    claim: Claim | undefined,
  ): MaybePromise<ReceiverResponse> {
    let result: unknown;
    try {
      result = handler(report, ctx);
    } catch (cause) {
      return failed(cause, ctx, claim);
    }
    if (!isThenable(result)) return succeeded(ctx, claim);
    const outcome = Promise.resolve(result).then(
      () => succeeded(ctx, claim),
      (cause: unknown) => failed(cause, ctx, claim),
    );
    return deadlineMs === undefined ? outcome : beforeDeadline(outcome, ctx);
  }

  /**
   * The outcome, or 503 `handler_timeout` once the deadline passed: the handler keeps running,
   * and its outcome still marks the key done or frees it, for the provider's retry to find.
   */
  function beforeDeadline(
    outcome: Promise<ReceiverResponse>,
    ctx: RequestContext,
  ): Promise<ReceiverResponse> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(reply(handlerTimeout(), ctx)), deadlineMs);
      outcome.then((response) => {
        clearTimeout(timer);
        resolve(response);
      });
    });
  }

  function succeeded(
    ctx: RequestContext,
    claim: Claim | undefined,
  ): MaybePromise<ReceiverResponse> {
    if (claim === undefined || dedupe === undefined) return OK;
    // The handler succeeded: 200 whatever the store says, or a retry would run it again.
    try {
      const done = dedupe.complete(claim.key, claim.owner);
      if (isThenable(done)) {
        return Promise.resolve(done).then(
          () => OK,
          (cause: unknown) => {
            reply(completeFailed(cause), ctx);
            return OK;
          },
        );
      }
    } catch (cause) {
      reply(completeFailed(cause), ctx);
    }
    return OK;
  }

  function failed(cause: unknown, ctx: RequestContext, claim: Claim | undefined): ReceiverResponse {
    if (claim !== undefined && dedupe !== undefined) {
      // Freed so the provider's retry runs the handler again; if the store cannot be told,
      // the lease runs out by itself.
      try {
        const released = dedupe.release(claim.key, claim.owner);
        if (isThenable(released)) released.then(undefined, ignore);
      } catch {}
    }
    return reply(
      new ReportkitError(
        "handler_failed",
        "The report handler failed; the provider will retry this report.",
        { cause },
      ),
      ctx,
    );
  }

  /** Queue mode: 202 once the queue holds the report, 503 if it cannot take it in time. */
  async function enqueue(
    report: Report,
    key: string | undefined,
    ctx: RequestContext,
  ): Promise<ReceiverResponse> {
    try {
      const added = (queue as ReportQueue).enqueue(report, key);
      await (deadlineMs === undefined ? added : withTimeout(added, deadlineMs));
    } catch (cause) {
      return reply(queueUnavailable(cause), ctx);
    }
    return QUEUED;
  }

  function attach(kind: "onDelivery" | "onCall" | "onError", handler: unknown): void {
    if (typeof handler !== "function") {
      throw new TypeError(
        `reportkit: \`${kind}(handler)\` takes a function, got ${typeof handler}.`,
      );
    }
    if (queue !== undefined && kind !== "onError") {
      throw new TypeError(
        `reportkit: this receiver is in queue mode: it answers 202 and a worker runs the handlers. Pass \`${kind}\` to \`createWorker\` from @reportkit/bullmq instead.`,
      );
    }
    const sent = template?.type === "call" ? "onCall" : "onDelivery";
    if (template !== undefined && kind !== "onError" && kind !== sent) {
      throw new TypeError(
        `reportkit: the composed template sends ${template.type} reports, so \`${kind}\` would never run; attach \`${sent}\`.`,
      );
    }
    if (handlers[kind] !== undefined) {
      throw new TypeError(
        `reportkit: this receiver already has an \`${kind}\` handler (from its options or attached before); it takes one per kind: do both things in one function.`,
      );
    }
    handlers[kind] = handler as never;
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

  const receiver: Receiver<T> = {
    handle,
    respond,
    fetch,
    readStream: (stream, headers, done) => readNodeStream(stream, headers, limit, done),
    refuse,
    onDelivery(handler) {
      attach("onDelivery", handler);
      return this;
    },
    onCall(handler) {
      attach("onCall", handler);
      return this;
    },
    onError(handler) {
      attach("onError", handler);
      return this;
    },
  };
  return receiver;
}

/** A claim on a report's key, held by one attempt. */
interface Claim {
  key: string;
  owner: string;
}

/** Owner ids unique across processes (the store may be shared): one random id, then a count. */
function ownerIds(): { next(): string } {
  let instance: string | undefined;
  let count = 0;
  return {
    next() {
      instance ??= globalThis.crypto.randomUUID();
      count += 1;
      return `${instance}:${count}`;
    },
  };
}

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function noHandler(): ReportkitError {
  return retryLater(
    "no_handler",
    "No report handler is attached yet (the app may still be starting); the provider will retry this report. Attach one with onDelivery(fn) / onCall(fn).",
    5,
  );
}

function inProgress(): ReportkitError {
  return retryLater(
    "in_progress",
    "This report is being processed by an earlier attempt; retry later to learn its outcome.",
    30,
  );
}

function handlerTimeout(): ReportkitError {
  return retryLater(
    "handler_timeout",
    "The report handler did not finish in time; it keeps running, and a retry of this report gets its outcome.",
    30,
  );
}

function dedupeUnavailable(cause: unknown): ReportkitError {
  return retryLater(
    "dedupe_unavailable",
    "The dedupe store is unreachable, so the report was not processed; the provider will retry it.",
    30,
    cause,
  );
}

function queueUnavailable(cause: unknown): ReportkitError {
  return retryLater(
    "queue_unavailable",
    "The report queue could not store the report (unreachable, or no answer within deadlineMs); the provider will retry it.",
    30,
    cause,
  );
}

function completeFailed(cause: unknown): ReportkitError {
  return new ReportkitError(
    "dedupe_unavailable",
    "The report was processed (200), but the dedupe store could not record it: a retry may run the handler again.",
    { cause },
  );
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
