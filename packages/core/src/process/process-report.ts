// From a valid report to the reply: hand it to the queue, or claim its key in the dedupe store,
// run the handler (bounded by the deadline) and record the outcome. The provider counts only
// 200/202 as delivered, so a reply is 2xx only once the handler (or the queue) succeeded.
import { answeredWithin, within } from "../async/deadlines.js";
import { ignore, isThenable, type MaybePromise } from "../async/maybe-promise.js";
import type { ErrorHandler, Handler } from "../receiver/receiver-options.js";
import type { ReceiverResponse } from "../receiver/types.js";
import type { Config } from "../receiver/validate-options.js";
import { ruleOf } from "../reply/error-table.js";
import {
  asReportkitError,
  completeFailed,
  dedupeUnavailable,
  handlerFailed,
  handlerTimeout,
  inProgress,
  noHandler,
  notRecorded,
  queueUnavailable,
  type ReportkitError,
} from "../reply/errors.js";
import { DUPLICATE, OK, QUEUED } from "../reply/replies.js";
import type { Report } from "../report/schemas.js";
import type { RequestState } from "../request/request-state.js";
import type { ClaimResult } from "../store-kit/dedupe-store.js";
import type { ReportOutcome, ReportSpan, Telemetry } from "../store-kit/telemetry.js";
import { addScope } from "./handler-context.js";
import { ownerIds } from "./owner-ids.js";

/** The handlers a receiver has so far: from its options, or attached later. */
export interface AttachedHandlers {
  onDelivery: Handler<Report> | undefined;
  onCall: Handler<Report> | undefined;
  onError: ErrorHandler | undefined;
}

/**
 * The error reply, after onError and the log were told (and, for a report the failure journal
 * keeps, once it was kept).
 */
export type Reply = (
  error: ReportkitError,
  request: RequestState,
) => MaybePromise<ReceiverResponse>;

/** A claim on a report's key, held by one attempt. */
interface Claim {
  key: string;
  owner: string;
}

/**
 * The second half of a receiver: `process(report, request)` answers a report read and
 * validated. Synchronous where every step is (the memory store, a handler returning a value).
 */
export function reportProcessor(
  config: Pick<Config, "dedupe" | "dedupeKey" | "deadlineMs" | "queue" | "telemetry">,
  handlers: AttachedHandlers,
  reply: Reply,
  unhandled?: (kind: Report["type"]) => void,
): (report: Report, request: RequestState) => MaybePromise<ReceiverResponse> {
  const { dedupe, deadlineMs, queue, telemetry } = config;
  const keyOf = config.dedupeKey;
  const owners = ownerIds();
  // A store whose claim opens a transaction: its handler gets the transaction, and a report is
  // recorded only once `complete` (the commit) succeeded.
  const scoped = dedupe?.scope !== undefined;
  const storeName = dedupe?.name === undefined ? "" : `"${dedupe.name}"`;

  /** With telemetry: the report's span around everything, its outcome read off the reply. */
  function traced(report: Report, request: RequestState): MaybePromise<ReceiverResponse> {
    const span = (telemetry as Telemetry).startReport(report.type, report.status);
    request.span = span;
    let response: MaybePromise<ReceiverResponse>;
    try {
      response = process(report, request);
    } catch (error) {
      span.end("failed", "internal_error");
      throw error;
    }
    if (!isThenable(response)) {
      endSpan(span, response);
      return response;
    }
    return (response as Promise<ReceiverResponse>).then(
      (ready) => {
        endSpan(span, ready);
        return ready;
      },
      (error: unknown) => {
        span.end("failed", "internal_error");
        throw error;
      },
    );
  }

  function process(report: Report, request: RequestState): MaybePromise<ReceiverResponse> {
    request.kind = report.type;
    let key: string | undefined;
    try {
      key = identify(report);
    } catch (error) {
      return reply(asReportkitError(error), request);
    }
    request.dedupeKey = key;
    if (queue !== undefined) return enqueue(report, key, request);
    const handler = report.type === "delivery" ? handlers.onDelivery : handlers.onCall;
    if (handler === undefined) {
      // Before any handler is attached the app is still starting: the provider retries later.
      // Once one is, a kind nobody handles is acknowledged, as the app chose.
      if (handlers.onDelivery !== undefined || handlers.onCall !== undefined) {
        unhandled?.(report.type);
        return OK;
      }
      return reply(noHandler(), request);
    }
    if (dedupe === undefined || (key === undefined && !scoped)) {
      return run(handler, report, request, undefined);
    }
    const owner = owners.next();
    // Without a key, a transactional store still gives the handler its transaction: the
    // report is claimed under a key of its own, used once.
    const claim = { key: key ?? `once:${owner}`, owner };
    let claimed: MaybePromise<ClaimResult>;
    try {
      claimed = dedupe.claim(claim.key, claim.owner);
    } catch (cause) {
      return reply(dedupeUnavailable(cause), request);
    }
    // The memory store answers at once: no closure, no promise.
    if (!isThenable(claimed)) return afterClaim(claimed, handler, report, request, claim);
    return (claimed as Promise<ClaimResult>).then(
      (result) => afterClaim(result, handler, report, request, claim),
      (cause: unknown) => reply(dedupeUnavailable(cause), request),
    );
  }

  function afterClaim(
    claimed: ClaimResult,
    handler: Handler<Report>,
    report: Report,
    request: RequestState,
    claim: Claim,
  ): MaybePromise<ReceiverResponse> {
    if (claimed === "done") return DUPLICATE;
    if (claimed !== "claimed") return reply(inProgress(), request);
    if (scoped) {
      try {
        addScope(request.context, dedupe?.scope?.(claim.owner), storeName);
      } catch (cause) {
        // The store's fault, not the handler's: released, and answered as reportkit's own.
        release(claim);
        return reply(asReportkitError(cause), request);
      }
    }
    return run(handler, report, request, claim);
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
    request: RequestState,
    claim: Claim | undefined,
  ): MaybePromise<ReceiverResponse> {
    const { span } = request;
    const ctx = request.context;
    const started = span === undefined ? 0 : performance.now();
    const measure =
      span === undefined
        ? undefined
        : () => span.handlerDuration((performance.now() - started) / 1000);
    let result: unknown;
    try {
      result = span === undefined ? handler(report, ctx) : span.run(() => handler(report, ctx));
    } catch (cause) {
      measure?.();
      return failed(cause, request, claim);
    }
    if (!isThenable(result)) {
      measure?.();
      return succeeded(request, claim);
    }
    if (measure !== undefined) result.then(measure, measure);
    const outcome = Promise.resolve(result).then(
      () => succeeded(request, claim),
      (cause: unknown) => failed(cause, request, claim),
    );
    // Past the deadline, 503 `handler_timeout`: the handler keeps running, and its outcome still
    // marks the key done or frees it, for the provider's retry to find.
    return deadlineMs === undefined
      ? outcome
      : within(outcome, deadlineMs, () => reply(handlerTimeout(), request));
  }

  function succeeded(
    request: RequestState,
    claim: Claim | undefined,
  ): MaybePromise<ReceiverResponse> {
    if (claim === undefined || dedupe === undefined) return OK;
    let done: void | Promise<void>;
    try {
      done = dedupe.complete(claim.key, claim.owner);
    } catch (cause) {
      return notDone(cause, request);
    }
    if (!isThenable(done)) return OK;
    return (done as Promise<void>).then(
      () => OK,
      (cause: unknown) => notDone(cause, request),
    );
  }

  /**
   * The handler succeeded: 200 whatever the store says, or a retry would run it again; unless
   * the store's `complete` is the commit of the handler's own writes.
   */
  function notDone(cause: unknown, request: RequestState): MaybePromise<ReceiverResponse> {
    if (scoped) return reply(notRecorded(cause), request);
    reply(completeFailed(cause), request);
    return OK;
  }

  function failed(
    cause: unknown,
    request: RequestState,
    claim: Claim | undefined,
  ): MaybePromise<ReceiverResponse> {
    if (claim !== undefined) release(claim);
    return reply(handlerFailed(cause), request);
  }

  /**
   * Frees a claim so the provider's retry runs the handler again; if the store cannot be told,
   * the lease runs out by itself.
   */
  function release(claim: Claim): void {
    try {
      const released = dedupe?.release(claim.key, claim.owner);
      if (isThenable(released)) released.then(undefined, ignore);
    } catch {}
  }

  /** Queue mode: 202 once the queue holds the report, 503 if it cannot take it in time. */
  async function enqueue(
    report: Report,
    key: string | undefined,
    request: RequestState,
  ): Promise<ReceiverResponse> {
    try {
      const trace = request.span?.carrier();
      const added = (queue as NonNullable<typeof queue>).enqueue(
        report,
        key,
        trace === undefined ? undefined : { trace },
      );
      await (deadlineMs === undefined ? added : answeredWithin(added, deadlineMs));
    } catch (cause) {
      return reply(queueUnavailable(cause), request);
    }
    return QUEUED;
  }

  return telemetry === undefined ? process : traced;
}

/** How a report ended, read off its reply: the error code's row says which failure it was. */
function endSpan(span: ReportSpan, response: ReceiverResponse): void {
  const { error } = response;
  if (error === undefined) {
    span.end(
      response === DUPLICATE ? "duplicate" : response === QUEUED ? "queued" : "acknowledged",
    );
    return;
  }
  const outcome: ReportOutcome = ruleOf(error.code).outcome;
  // An attempt still running elsewhere is no error of this one.
  span.end(outcome, outcome === "in_progress" ? undefined : error.code);
}
