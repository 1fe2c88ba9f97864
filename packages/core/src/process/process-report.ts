// From a valid report to the reply: hand it to the queue, or claim its key in the dedupe store,
// run the handler (bounded by the deadline) and record the outcome. The provider counts only
// 200/202 as delivered, so a reply is 2xx only once the handler (or the queue) succeeded.

import { ignore, isThenable, type MaybePromise, withTimeout } from "../promises.js";
import type { Config, ErrorHandler, Handler } from "../receiver/receiver-options.js";
import type { ReceiverResponse } from "../receiver/types.js";
import type { ReportkitError } from "../reply/errors.js";
import {
  asReportkitError,
  completeFailed,
  DUPLICATE,
  dedupeUnavailable,
  handlerFailed,
  handlerTimeout,
  inProgress,
  noHandler,
  notRecorded,
  OK,
  QUEUED,
  queueUnavailable,
} from "../reply/replies.js";
import type { Report } from "../report/schemas.js";
import type { RequestContext } from "../request/context.js";
import type { ClaimResult, DedupeStore } from "../store-kit/dedupe-store.js";
import type { ReportQueue } from "../store-kit/report-queue.js";
import type { ReportOutcome, ReportSpan, Telemetry } from "../store-kit/telemetry.js";
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
export type Reply = (error: ReportkitError, ctx: RequestContext) => MaybePromise<ReceiverResponse>;

/** A claim on a report's key, held by one attempt. */
interface Claim {
  key: string;
  owner: string;
}

/**
 * The second half of a receiver: `process(report, ctx)` answers a report read and validated.
 * Synchronous where every step is (the memory store, a handler returning a value).
 */
export function reportProcessor(
  config: Pick<Config, "dedupe" | "dedupeKey" | "deadlineMs" | "queue" | "telemetry">,
  handlers: AttachedHandlers,
  reply: Reply,
  unhandled?: (kind: Report["type"]) => void,
): (report: Report, ctx: RequestContext) => MaybePromise<ReceiverResponse> {
  const { dedupe, deadlineMs, queue, telemetry } = config;
  const keyOf = config.dedupeKey;
  const owners = ownerIds();
  // A store whose claim opens a transaction: its handler gets the transaction, and a report is
  // recorded only once `complete` (the commit) succeeded.
  const scoped = dedupe?.scope !== undefined;

  /** With telemetry: the report's span around everything, its outcome read off the reply. */
  function traced(report: Report, ctx: RequestContext): MaybePromise<ReceiverResponse> {
    const span = (telemetry as Telemetry).startReport(report.type, report.status);
    ctx.span = span;
    let response: MaybePromise<ReceiverResponse>;
    try {
      response = process(report, ctx);
    } catch (error) {
      span.end("failed", "internal_error");
      throw error;
    }
    if (!isThenable(response)) {
      endSpan(span, response);
      return response;
    }
    return response.then(
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

  function process(report: Report, ctx: RequestContext): MaybePromise<ReceiverResponse> {
    ctx.kind = report.type;
    let key: string | undefined;
    try {
      key = identify(report);
    } catch (error) {
      return reply(asReportkitError(error), ctx);
    }
    ctx.dedupeKey = key;
    if (queue !== undefined) return enqueue(report, key, ctx);
    const handler = report.type === "delivery" ? handlers.onDelivery : handlers.onCall;
    if (handler === undefined) {
      // Before any handler is attached the app is still starting: the provider retries later.
      // Once one is, a kind nobody handles is acknowledged, as the app chose.
      if (handlers.onDelivery !== undefined || handlers.onCall !== undefined) {
        unhandled?.(report.type);
        return OK;
      }
      return reply(noHandler(), ctx);
    }
    if (dedupe === undefined || (key === undefined && !scoped)) {
      return run(handler, report, ctx, undefined);
    }
    const owner = owners.next();
    // Without a key, a transactional store still gives the handler its transaction: the
    // report is claimed under a key of its own, used once.
    const claim = { key: key ?? `once:${owner}`, owner };
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
    if (claimed === "claimed") {
      if (scoped) {
        try {
          Object.assign(ctx, (dedupe as DedupeStore).scope?.(claim.owner));
        } catch (cause) {
          return failed(cause, ctx, claim);
        }
      }
      return run(handler, report, ctx, claim);
    }
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
    const { span } = ctx;
    const started = span === undefined ? 0 : performance.now();
    let result: unknown;
    try {
      result = span === undefined ? handler(report, ctx) : span.run(() => handler(report, ctx));
    } catch (cause) {
      if (span !== undefined) span.handlerDuration((performance.now() - started) / 1000);
      return failed(cause, ctx, claim);
    }
    if (!isThenable(result)) {
      if (span !== undefined) span.handlerDuration((performance.now() - started) / 1000);
      return succeeded(ctx, claim);
    }
    if (span !== undefined) {
      const measure = () => span.handlerDuration((performance.now() - started) / 1000);
      result.then(measure, measure);
    }
    const outcome = Promise.resolve(result).then(
      () => succeeded(ctx, claim),
      (cause: unknown) => failed(cause, ctx, claim),
    );
    return deadlineMs === undefined ? outcome : beforeDeadline(outcome, ctx, deadlineMs);
  }

  /**
   * The outcome, or 503 `handler_timeout` once the deadline passed: the handler keeps running,
   * and its outcome still marks the key done or frees it, for the provider's retry to find.
   */
  function beforeDeadline(
    outcome: Promise<ReceiverResponse>,
    ctx: RequestContext,
    ms: number,
  ): Promise<ReceiverResponse> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(reply(handlerTimeout(), ctx)), ms);
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
    // The handler succeeded: 200 whatever the store says, or a retry would run it again;
    // unless the store's `complete` is the commit of the handler's own writes.
    const notDone = (cause: unknown) => {
      if (scoped) return reply(notRecorded(cause), ctx);
      reply(completeFailed(cause), ctx);
      return OK;
    };
    try {
      const done = dedupe.complete(claim.key, claim.owner);
      if (isThenable(done)) return Promise.resolve(done).then(() => OK, notDone);
    } catch (cause) {
      return notDone(cause);
    }
    return OK;
  }

  function failed(
    cause: unknown,
    ctx: RequestContext,
    claim: Claim | undefined,
  ): MaybePromise<ReceiverResponse> {
    if (claim !== undefined && dedupe !== undefined) {
      // Freed so the provider's retry runs the handler again; if the store cannot be told,
      // the lease runs out by itself.
      try {
        const released = dedupe.release(claim.key, claim.owner);
        if (isThenable(released)) released.then(undefined, ignore);
      } catch {}
    }
    return reply(handlerFailed(cause), ctx);
  }

  /** Queue mode: 202 once the queue holds the report, 503 if it cannot take it in time. */
  async function enqueue(
    report: Report,
    key: string | undefined,
    ctx: RequestContext,
  ): Promise<ReceiverResponse> {
    try {
      const trace = ctx.span?.carrier();
      const added = (queue as ReportQueue).enqueue(
        report,
        key,
        trace === undefined ? undefined : { trace },
      );
      await (deadlineMs === undefined ? added : withTimeout(added, deadlineMs));
    } catch (cause) {
      return reply(queueUnavailable(cause), ctx);
    }
    return QUEUED;
  }

  return telemetry === undefined ? process : traced;
}

/** How a report ended, read off its reply. */
function endSpan(span: ReportSpan, response: ReceiverResponse): void {
  const [outcome, errorType] = outcomeOf(response);
  span.end(outcome, errorType);
}

function outcomeOf(response: ReceiverResponse): [ReportOutcome, string?] {
  if (response === OK) return ["acknowledged"];
  if (response === DUPLICATE) return ["duplicate"];
  if (response === QUEUED) return ["queued"];
  const code = response.error?.code;
  if (code === "handler_timeout") return ["timeout", code];
  if (code === "in_progress") return ["in_progress"];
  if (response.status === 503) return ["unavailable", code];
  return ["failed", code];
}
