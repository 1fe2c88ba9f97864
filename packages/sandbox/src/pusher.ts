import { setMaxListeners } from "node:events";
import type { PushRequest } from "./push-request.js";
import { sendOnce } from "./send-once.js";

/** One line of the push log. */
export interface PushAttempt {
  /** The DLR id, the call's mid, or the opt-out's id. */
  reportId: string;
  reportType: "delivery" | "call" | "unsubscribe";
  webhookId: string | null;
  method: string;
  url: string;
  /** 1 for the first try; 0 for a report that was not pushed at all. */
  attempt: number;
  /** 1 + retries. */
  maxAttempts: number;
  /** The receiver's status code, when it answered. */
  statusCode: number | null;
  /** Why no status came back (timeout, connection refused, ...), or why nothing was sent. */
  error: string | null;
  at: Date;
  durationMs: number;
  /**
   * delivered: 200 or 202. retrying: failed, another attempt is scheduled at `nextAttemptAt`.
   * dropped: failed and no retry is left. skipped: not sent (inactive or deleted webhook).
   */
  outcome: "delivered" | "retrying" | "dropped" | "skipped";
  nextAttemptAt: Date | null;
  /** The request as sent (for a skipped report: as it would have been sent). */
  request: PushRequest;
  /** The receiver's reply body as text (its first 16 KiB), when it answered with one. */
  responseBody: string | null;
}

export interface PushJob {
  reportId: string;
  reportType: "delivery" | "call" | "unsubscribe";
  webhookId: string | null;
  request: PushRequest;
  /**
   * Asked before each retry: a reason not to send it (the webhook was deactivated or deleted
   * meanwhile), or undefined to go on.
   */
  retryBlocked?: () => string | undefined;
}

/** "skipped": a retry was not sent because `retryBlocked` gave a reason. */
export type PushOutcome = "delivered" | "dropped" | "skipped" | "cancelled";

export interface PusherOptions {
  /** Retries after a failed attempt. Default 3, as the provider. */
  retries?: number;
  /** Wait between attempts, in ms. Default 1 800 000 (30 minutes), as the provider. */
  retryIntervalMs?: number;
  /** How long to wait for the receiver's status, in ms. Default 10 000. */
  timeoutMs?: number;
  /** Told of every attempt as it completes. */
  onAttempt?: (attempt: PushAttempt) => void;
  /** Largest number of attempts kept in `attempts` (oldest go first). Default 10 000. */
  maxLogSize?: number;
}

export interface Pusher {
  /** Sends the job with the provider's retry behaviour; resolves with its final outcome. */
  push(job: PushJob): Promise<PushOutcome>;
  /** Logs a job that is not sent (e.g. its webhook is inactive). */
  skip(job: PushJob, reason: string): PushAttempt;
  /** Every attempt so far, oldest first. */
  readonly attempts: readonly PushAttempt[];
  /** Resolves once no push is in flight or waiting for a retry. */
  idle(): Promise<void>;
  /** Cancels every scheduled retry (those pushes resolve "cancelled") and aborts attempts in flight. */
  close(): void;
  /**
   * Sends the next attempt of every push of `reportId` waiting for a retry now, instead of at
   * its `nextAttemptAt`. Resolves how many pushes were woken (0: none was waiting).
   */
  retryNow(reportId: string): number;
}

export interface ResolvedPusherOptions {
  retries: number;
  retryIntervalMs: number;
  timeoutMs: number;
}

/**
 * Validates the pusher's numbers, naming the option.
 * @throws TypeError
 */
export function resolvePusherOptions(options: PusherOptions, who: string): ResolvedPusherOptions {
  const retries = options.retries ?? 3;
  if (!Number.isSafeInteger(retries) || retries < 0) {
    throw new TypeError(
      `${who}: \`retries\` must be a whole number from 0, got ${String(retries)}.`,
    );
  }
  const retryIntervalMs = options.retryIntervalMs ?? 1_800_000;
  if (!Number.isFinite(retryIntervalMs) || retryIntervalMs < 0 || retryIntervalMs > 2 ** 31 - 1) {
    throw new TypeError(
      `${who}: \`retryIntervalMs\` must be a number of ms from 0 to 2147483647, got ${String(retryIntervalMs)}.`,
    );
  }
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > 2 ** 31 - 1) {
    throw new TypeError(
      `${who}: \`timeoutMs\` must be a positive number of ms, got ${String(timeoutMs)}.`,
    );
  }
  return { retries, retryIntervalMs, timeoutMs };
}

/**
 * The provider's delivery loop: POST, and on anything but 200/202 (or a timeout or refused
 * connection) try again `retries` times, `retryIntervalMs` apart, then drop the report.
 */
export function createPusher(options: PusherOptions = {}): Pusher {
  const { retries, retryIntervalMs, timeoutMs } = resolvePusherOptions(options, "reportkit pusher");
  const maxAttempts = retries + 1;
  const maxLogSize = options.maxLogSize ?? 10_000;
  const attempts: PushAttempt[] = [];
  const timers = new Map<NodeJS.Timeout, () => void>();
  // Pushes waiting for their next attempt, by report id: calling one ends its wait early.
  const waiting = new Map<string, Set<() => void>>();
  let active = 0;
  let waiters: (() => void)[] = [];
  let closed = false;
  const shutdown = new AbortController();
  // Every push in flight listens on it (one listener per request, removed when it ends): as
  // many as there are pushes at once, which is no leak, so no warning past Node's default 10.
  setMaxListeners(0, shutdown.signal);

  function record(entry: PushAttempt): void {
    attempts.push(entry);
    if (attempts.length > maxLogSize) attempts.splice(0, attempts.length - maxLogSize);
    try {
      options.onAttempt?.(entry);
    } catch {
      // A failing observer must not stop the delivery loop.
    }
  }

  function settle(): void {
    active--;
    if (active === 0) {
      const done = waiters;
      waiters = [];
      for (const resolve of done) resolve();
    }
  }

  function entry(job: PushJob, attempt: number, fields: Partial<PushAttempt>): PushAttempt {
    return {
      reportId: job.reportId,
      reportType: job.reportType,
      webhookId: job.webhookId,
      method: job.request.method,
      url: job.request.url,
      attempt,
      maxAttempts,
      statusCode: null,
      error: null,
      at: new Date(),
      durationMs: 0,
      outcome: "skipped",
      nextAttemptAt: null,
      request: job.request,
      responseBody: null,
      ...fields,
    };
  }

  async function run(job: PushJob): Promise<PushOutcome> {
    for (let attempt = 1; ; attempt++) {
      const blocked = attempt > 1 ? job.retryBlocked?.() : undefined;
      if (blocked !== undefined) {
        record(entry(job, attempt, { error: blocked }));
        return "skipped";
      }
      const started = Date.now();
      const result = await sendOnce(job.request, timeoutMs, shutdown.signal);
      // Aborted by close(): the sender went away, the receiver did not fail it.
      if (!result.ok && closed) return "cancelled";
      const outcome = result.ok ? "delivered" : attempt >= maxAttempts ? "dropped" : "retrying";
      record(
        entry(job, attempt, {
          statusCode: result.statusCode,
          error: result.ok ? null : result.error,
          responseBody: result.body,
          at: new Date(started),
          durationMs: Date.now() - started,
          outcome,
          nextAttemptAt: outcome === "retrying" ? new Date(Date.now() + retryIntervalMs) : null,
        }),
      );
      if (outcome !== "retrying") return outcome;
      const cancelled = await wait(retryIntervalMs, job.reportId);
      if (cancelled) return "cancelled";
    }
  }

  /** Resolves true if the wait was cancelled by close(), false when it ended (or was cut short). */
  function wait(ms: number, reportId: string): Promise<boolean> {
    return new Promise((resolve) => {
      const woken = waiting.get(reportId) ?? new Set<() => void>();
      waiting.set(reportId, woken);
      const end = (cancelled: boolean) => {
        clearTimeout(timer);
        timers.delete(timer);
        woken.delete(wake);
        if (woken.size === 0 && waiting.get(reportId) === woken) waiting.delete(reportId);
        resolve(cancelled);
      };
      const wake = () => end(false);
      const timer = setTimeout(wake, ms);
      timers.set(timer, () => end(true));
      woken.add(wake);
    });
  }

  return {
    push(job) {
      if (closed) return Promise.resolve("cancelled");
      active++;
      return run(job).finally(settle);
    },
    skip(job, reason) {
      const skipped = entry(job, 0, { error: reason });
      record(skipped);
      return skipped;
    },
    get attempts() {
      return attempts;
    },
    idle() {
      if (active === 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
    close() {
      closed = true;
      shutdown.abort();
      for (const cancel of [...timers.values()]) cancel();
      timers.clear();
      waiting.clear();
    },
    retryNow(reportId) {
      const woken = [...(waiting.get(reportId) ?? [])];
      for (const wake of woken) wake();
      return woken.length;
    },
  };
}
