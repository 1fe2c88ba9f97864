// The receiver: its configuration, the pipeline's two halves joined (read a report, then
// process it), handlers attached after construction, and the object adapters call.
import type { ComposedTemplate } from "@reportkit/wire";
import { afterDrain } from "../body/drain-body.js";
import { failedBody } from "../body/read-body.js";
import { readNodeStream } from "../body/read-stream.js";
import { type AttachedHandlers, reportProcessor } from "../process/process-report.js";
import { ignore, isThenable, type MaybePromise } from "../promises.js";
import type { ReportkitError } from "../reply/errors.js";
import { failureKeeper } from "../reply/failure-journal.js";
import { receiverLog, unhandledKindLog } from "../reply/receiver-log.js";
import { asReportkitError, errorResponse, refusal, shuttingDown } from "../reply/replies.js";
import type { Report } from "../report/schemas.js";
import { challengeStep, settleChallenge } from "../request/challenge.js";
import { RequestContext } from "../request/context.js";
import { reportReader } from "../request/read-report.js";
import { type ReceiverLifecycle, receiverLifecycle } from "./receiver-lifecycle.js";
import { type Config, type ReceiverOptions, validateOptions } from "./receiver-options.js";
import type { Receiver, ReceiverRequest, ReceiverResponse, RefusalCode } from "./types.js";

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
export function createReceiver<
  const T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
>(options?: ReceiverOptions<T, S>): Receiver<T, S> {
  const config = validateOptions(
    options as ReceiverOptions<ComposedTemplate | undefined> | undefined,
  );
  return receiverFrom(config, handlersOf(config));
}

/** The handlers the options give, for a receiver to attach more to. */
export function handlersOf(config: Config): AttachedHandlers {
  return {
    onDelivery: config.onDelivery as AttachedHandlers["onDelivery"],
    onCall: config.onCall as AttachedHandlers["onCall"],
    onError: config.onError,
  };
}

/**
 * A receiver from validated options, attaching to `handlers`: receivers built on one handler
 * set (and one config, so one dedupe store) share whatever is attached to any of them. Given a
 * `lifecycle`, they share it too: closing one closes them all, and close waits for all their
 * requests (Hono's receivers per Workers token are one receiver to the app).
 */
export function receiverFrom<T extends ComposedTemplate | undefined, S extends object = object>(
  config: Config,
  handlers: AttachedHandlers,
  lifecycle: ReceiverLifecycle = receiverLifecycle(config),
): Receiver<T, S> {
  const { template, limit, credentialHeader, queue, telemetry, bodyTimeoutMs } = config;
  const logger = config.logger === false ? undefined : (config.logger ?? console);
  const log = logger === undefined ? undefined : receiverLog(logger);
  const read = reportReader(config);
  const unhandled = logger === undefined ? undefined : unhandledKindLog(logger);
  const process = reportProcessor(config, handlers, reply, unhandled);
  const keep =
    config.journal === undefined
      ? undefined
      : failureKeeper(config.journal, (error) => log?.(error));
  const answerChallenge = challengeStep(
    config.challenge,
    config.check,
    config.bearer,
    template?.method === "GET" &&
      template.sources.some((s) => s.from === "query" && s.key === "challenge"),
  );

  /**
   * The error reply, once onError (an observer) and the log were told, and once the failure
   * journal kept the report if it is one to keep.
   */
  function reply(error: ReportkitError, ctx: RequestContext): MaybePromise<ReceiverResponse> {
    // A report with a span is counted when the span ends; anything else was refused.
    if (telemetry !== undefined && ctx.span === undefined) telemetry.refused(error.code, ctx.kind);
    const { onError } = handlers;
    if (onError !== undefined) {
      try {
        const observed = onError(error, ctx);
        if (isThenable(observed)) observed.then(undefined, ignore);
      } catch {
        // onError is an observer: its failure must not change the reply.
      }
    }
    if (log !== undefined && (onError === undefined || config.logger !== undefined)) {
      log(error, ctx);
    }
    const response = errorResponse(error);
    const kept = keep?.(error, ctx);
    return kept === undefined ? response : kept.then(() => response);
  }

  /**
   * The reply, as soon as it is known: the response itself when every step was synchronous
   * (a body in hand, the memory store, a handler returning a value), a promise otherwise.
   * Never throws: every failure is a reply.
   */
  function respond(request: ReceiverRequest): MaybePromise<ReceiverResponse> {
    const ctx = contextOf(request);
    if (lifecycle.closing) return refused(request, shuttingDown(), ctx);
    // The default responder answers only GETs: a POST report pays this one comparison.
    if (answerChallenge !== undefined && (ctx.method === "GET" || config.challenge !== undefined)) {
      let answered: ReturnType<typeof answerChallenge>;
      try {
        answered = answerChallenge(ctx.method, ctx.url, ctx.rawHeaders);
      } catch (error) {
        return reply(asReportkitError(error), ctx);
      }
      if (answered !== undefined) {
        return settleChallenge(
          answered,
          () => receive(request, ctx),
          (error) => reply(asReportkitError(error), ctx),
        );
      }
    }
    return receive(request, ctx);
  }

  function receive(request: ReceiverRequest, ctx: RequestContext): MaybePromise<ReceiverResponse> {
    let received: MaybePromise<Report>;
    try {
      received = read(request, ctx);
    } catch (error) {
      return refused(request, asReportkitError(error), ctx);
    }
    if (!isThenable(received)) return lifecycle.track(process(received, ctx));
    return lifecycle.track(
      (received as Promise<Report>).then(
        (report) => process(report, ctx),
        (error: unknown) => refused(request, asReportkitError(error), ctx),
      ),
    );
  }

  /** A refusal's reply, once what is left of an unread body was dropped (see drain-body.ts). */
  function refused(
    request: ReceiverRequest,
    error: ReportkitError,
    ctx: RequestContext,
  ): MaybePromise<ReceiverResponse> {
    const response = reply(error, ctx);
    return ctx.bodyReadBegun ? response : afterDrain(request, response, bodyTimeoutMs);
  }

  function handle(request: ReceiverRequest): Promise<ReceiverResponse> {
    try {
      return Promise.resolve(respond(request));
    } catch (error) {
      return Promise.reject(error);
    }
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
    return handle({ ...request, body: failedBody(refusal(code, limit, bodyTimeoutMs)) });
  }

  function attach(kind: keyof AttachedHandlers, handler: unknown): void {
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

  const receiver: Receiver<T, S> = {
    handle,
    respond,
    fetch,
    health: lifecycle.health,
    close: lifecycle.close,
    readStream: (stream, headers, done) =>
      readNodeStream(stream, headers, limit, done, bodyTimeoutMs),
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
