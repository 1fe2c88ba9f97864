// From a valid report to the reply: hand it to the queue, or claim its key in the dedupe store,
// run the handler (bounded by the deadline) and record the outcome. The provider counts only
// 200/202 as delivered, so a reply is 2xx only once the handler (or the queue) succeeded.
import type { RequestContext } from "./context.js";
import type { ClaimResult } from "./dedupe-store.js";
import type { ReportkitError } from "./errors.js";
import { ownerIds } from "./owner-ids.js";
import { ignore, isThenable, type MaybePromise, withTimeout } from "./promises.js";
import type { Config, ErrorHandler, Handler } from "./receiver-options.js";
import {
  asReportkitError,
  completeFailed,
  DUPLICATE,
  dedupeUnavailable,
  handlerFailed,
  handlerTimeout,
  inProgress,
  noHandler,
  OK,
  QUEUED,
  queueUnavailable,
} from "./replies.js";
import type { Report } from "./schemas.js";
import type { ReceiverResponse } from "./types.js";

/** The handlers a receiver has so far: from its options, or attached later. */
export interface AttachedHandlers {
  onDelivery: Handler<Report> | undefined;
  onCall: Handler<Report> | undefined;
  onError: ErrorHandler | undefined;
}

/** The error reply, after onError and the log were told. */
export type Reply = (error: ReportkitError, ctx: RequestContext) => ReceiverResponse;

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
  config: Pick<Config, "dedupe" | "dedupeKey" | "deadlineMs" | "queue">,
  handlers: AttachedHandlers,
  reply: Reply,
): (report: Report, ctx: RequestContext) => MaybePromise<ReceiverResponse> {
  const { dedupe, deadlineMs, queue } = config;
  const keyOf = config.dedupeKey;
  const owners = ownerIds();

  function process(report: Report, ctx: RequestContext): MaybePromise<ReceiverResponse> {
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
    return reply(handlerFailed(cause), ctx);
  }

  /** Queue mode: 202 once the queue holds the report, 503 if it cannot take it in time. */
  async function enqueue(
    report: Report,
    key: string | undefined,
    ctx: RequestContext,
  ): Promise<ReceiverResponse> {
    try {
      const added = (queue as NonNullable<typeof queue>).enqueue(report, key);
      await (deadlineMs === undefined ? added : withTimeout(added, deadlineMs));
    } catch (cause) {
      return reply(queueUnavailable(cause), ctx);
    }
    return QUEUED;
  }

  return process;
}
