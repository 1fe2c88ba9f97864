// The receiver: its configuration, the pipeline's two halves joined (read a report, then
// process it), and the object adapters call.
import type { ComposedTemplate } from "@reportkit/wire";
import { ignore, isThenable, type MaybePromise } from "../async/maybe-promise.js";
import { type ClassifiedBody, classifyBody, failedBody } from "../body/classify-body.js";
import { afterDrain } from "../body/drain-body.js";
import { readNodeStream } from "../body/read-stream.js";
import { reportProcessor } from "../process/process-report.js";
import { asReportkitError, type ReportkitError, shuttingDown } from "../reply/errors.js";
import { failureKeeper } from "../reply/failure-journal.js";
import { parsedBodyNotice, unhandledKindLog, warningLog } from "../reply/notices.js";
import { receiverLog } from "../reply/receiver-log.js";
import { phoneKeysOf } from "../reply/redact-request.js";
import { errorResponse, refusal } from "../reply/replies.js";
import type { Report } from "../report/schemas.js";
import { Answered, verificationOf } from "../request/challenge.js";
import { reportReader } from "../request/read-report.js";
import { RequestState } from "../request/request-state.js";
import { attachHandlers } from "./attach-handlers.js";
import type { RequestEnvToken } from "./credential-options.js";
import type { EnvRecord } from "./env-credentials.js";
import { receiverLifecycle } from "./receiver-lifecycle.js";
import type { ReceiverOptions } from "./receiver-options.js";
import type { Receiver, ReceiverRequest, ReceiverResponse, RefusalCode } from "./types.js";
import { type Config, validateOptions } from "./validate-options.js";

/**
 * Creates the receiver: one object whose `handle` (or `fetch`) authenticates, reads,
 * validates and dispatches one pushed report, and answers 200 only once the handler
 * succeeded, so a failure is always retried by the provider; a retry of a report already
 * processed is answered 200 `duplicate` without running the handler again (`dedupe`).
 *
 * @example
 * const receiver = createReceiver({ secret: process.env.REPORTKIT_SECRET })
 *   .onDelivery((report) => console.log(report.id, report.status, report.deliveredAt));
 * export default { fetch: (request: Request) => receiver.fetch(request) };
 */
export function createReceiver<
  const T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
>(options?: ReceiverOptions<T, S>): Receiver<T, S> {
  return receiverFrom(
    validateOptions(options as ReceiverOptions<ComposedTemplate | undefined> | undefined),
  );
}

/** The receiver of options an adapter completed (see adapterReceiver). */
export function createReceiverFrom<T extends ComposedTemplate | undefined, S extends object>(
  options: ReceiverOptions<ComposedTemplate | undefined>,
  requestEnv: RequestEnvToken | undefined,
  renames: readonly string[],
): Receiver<T, S> {
  const config = validateOptions(options, requestEnv);
  return receiverFrom({ ...config, renames: [...renames, ...config.renames] });
}

/** A receiver from validated options. */
export function receiverFrom<T extends ComposedTemplate | undefined, S extends object = object>(
  config: Config,
): Receiver<T, S> {
  const { template, limit, credential, telemetry, bodyTimeoutMs, logger } = config;
  const lifecycle = receiverLifecycle(config);
  const handlers = attachHandlers(config);
  const log = logger === undefined ? undefined : receiverLog(logger);
  // A composed template whose own keys are the handshake's reads those bodies as its reports.
  const verification = verificationOf(
    config.challenge,
    credential,
    template?.sources.some(
      (s) => s.from !== "path" && (s.key === "challenge" || s.key === "validation_key"),
    ) === true,
  );
  const read = reportReader(config, verification);
  const unhandled = logger === undefined ? undefined : unhandledKindLog(logger);
  const warned = logger === undefined ? undefined : warningLog(logger);
  const parsedBefore = logger === undefined ? undefined : parsedBodyNotice(logger);
  const process = reportProcessor(config, handlers.attached, reply, unhandled);
  const keep =
    config.journal === undefined
      ? undefined
      : failureKeeper(config.journal, (e) => log?.(e), phoneKeysOf(template));
  for (const line of config.renames) logger?.warn(line);

  /**
   * The error reply, once telemetry, onError (an observer) and the log were told, and once the
   * failure journal kept the report if it is one to keep.
   */
  function reply(error: ReportkitError, request: RequestState): MaybePromise<ReceiverResponse> {
    // A report with a span is counted when the span ends; a verification as one; anything
    // else was refused.
    if (telemetry !== undefined && request.span === undefined) {
      if (request.verification) telemetry.verification?.("refused");
      else telemetry.refused(error.code, request.kind);
    }
    const { onError } = handlers.attached;
    if (onError !== undefined) {
      try {
        const observed = onError(error, request.context);
        if (isThenable(observed)) observed.then(undefined, ignore);
      } catch {
        // onError is an observer: its failure must not change the reply.
      }
    }
    log?.(error, request);
    const response = errorResponse(error);
    const kept = keep?.(error, request);
    return kept === undefined ? response : kept.then(() => response);
  }

  /**
   * The reply, as soon as it is known: the response itself when every step was synchronous
   * (see async/maybe-promise.ts), a promise otherwise. Never throws: every failure is a reply.
   */
  function respond(request: ReceiverRequest): MaybePromise<ReceiverResponse> {
    return respondTo(stateOf(request, undefined));
  }

  function respondTo(state: RequestState): MaybePromise<ReceiverResponse> {
    if (lifecycle.closing) return refused(state, shuttingDown());
    return receive(state);
  }

  function receive(state: RequestState): MaybePromise<ReceiverResponse> {
    if (state.body.form === "parsed") parsedBefore?.();
    let received: ReturnType<typeof read>;
    try {
      received = read(state);
    } catch (error) {
      return refused(state, asReportkitError(error));
    }
    if (!isThenable(received)) return lifecycle.track(next(received, state));
    return lifecycle.track(
      (received as Promise<Report | Answered>).then(
        (report) => next(report, state),
        (error: unknown) => refused(state, asReportkitError(error)),
      ),
    );
  }

  /** What a read request becomes: the verification's answer, or the report processed. */
  function next(report: Report | Answered, state: RequestState): MaybePromise<ReceiverResponse> {
    if (report instanceof Answered) return answered(report);
    if (report.warnings.length > 0) warned?.(report);
    return process(report, state);
  }

  /** The verification, answered: counted as one, never as a report. */
  function answered({ response }: Answered): ReceiverResponse {
    telemetry?.verification?.("answered");
    return response;
  }

  /** A refusal's reply, once what is left of an unread body was dropped (see drain-body.ts). */
  function refused(state: RequestState, error: ReportkitError): MaybePromise<ReceiverResponse> {
    const response = reply(error, state);
    if (state.bodyReadBegun) return response;
    return afterDrain(state.body, state.header("content-length"), response, bodyTimeoutMs);
  }

  function handle(request: ReceiverRequest): Promise<ReceiverResponse> {
    try {
      return Promise.resolve(respond(request));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async function fetch(request: Request, env?: EnvRecord): Promise<Response> {
    const response = await handle({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: request,
      env,
    });
    return new Response(response.body, { status: response.status, headers: response.headers });
  }

  /**
   * The request's state, the body classified once here (or the failure an adapter reported).
   * Never throws, whatever an adapter passes: a reply needs a state even for a bad request.
   */
  function stateOf(request: ReceiverRequest, failed: ClassifiedBody | undefined): RequestState {
    const { method, url, headers, body, env } = (request ?? {}) as Partial<ReceiverRequest>;
    return new RequestState(
      typeof method === "string" ? method.toUpperCase() : "",
      typeof url === "string" ? url : "",
      typeof headers === "object" && headers !== null ? headers : {},
      credential.header,
      failed ?? classifyBody(body),
      typeof env === "object" && env !== null ? env : undefined,
    );
  }

  function refuse(
    code: RefusalCode,
    request: Omit<ReceiverRequest, "body">,
  ): Promise<ReceiverResponse> {
    // The refusal stands where core would have read the body, after method, auth and type.
    const state = stateOf(request, failedBody(refusal(code, limit, bodyTimeoutMs)));
    try {
      return Promise.resolve(respondTo(state));
    } catch (error) {
      return Promise.reject(error);
    }
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
      handlers.attach("onDelivery", handler);
      return this;
    },
    onCall(handler) {
      handlers.attach("onCall", handler);
      return this;
    },
    onError(handler) {
      handlers.attach("onError", handler);
      return this;
    },
  };
  return receiver;
}
