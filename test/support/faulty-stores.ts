// A dedupe store and a report queue that fail on demand, for tests of the replies a failing
// store or queue gets (503 dedupe_unavailable, 503 queue_unavailable). Web-standard only (no
// node: imports): the conformance worker bundles them into workerd too.
import { memoryDedupe } from "@reportkit/core";
import type { DedupeStore, ReportQueue } from "@reportkit/core/adapter";

/**
 * Which step of the store fails, and for how many calls (default: every one; `times: 1` is a
 * store that was down for the first attempt and is back for the retry).
 */
export interface StoreFault {
  /** "claim": the claim rejects (unreachable before the handler). "complete": marking the report done rejects (after the handler succeeded). */
  fails: "claim" | "complete";
  times?: number;
}

/**
 * How the queue fails: "rejects" (unreachable), "hangs" (its enqueue never settles, so only the
 * receiver's `deadlineMs` ends the wait); for the first `times` enqueues, default every one.
 */
export interface QueueFault {
  fails: "rejects" | "hangs";
  times?: number;
}

/** Counts calls and says whether this one is still among the failing ones. */
function faultCounter(times: number | undefined): () => boolean {
  let calls = 0;
  return () => {
    calls += 1;
    return times === undefined || calls <= times;
  };
}

/** The in-memory store (`memoryDedupe()`), whose `fault.fails` step rejects as a store that is down. */
export function faultyDedupe(fault: StoreFault): DedupeStore {
  const store = memoryDedupe();
  const failing = faultCounter(fault.times);
  const down = () =>
    Promise.reject(new Error(`dedupe store unreachable (test fault: ${fault.fails})`));
  return {
    leaseMs: store.leaseMs,
    name: "faulty memory store",
    claim: (key, owner) =>
      fault.fails === "claim" && failing() ? down() : store.claim(key, owner),
    complete: (key, owner) =>
      fault.fails === "complete" && failing() ? down() : store.complete(key, owner),
    release: (key, owner) => store.release(key, owner),
  };
}

/** One report a queue took: what the worker would later get. */
export interface Enqueued {
  report: unknown;
  key: string | undefined;
}

/**
 * A queue that keeps its jobs in memory, one per key as a real queue's contract asks (a report
 * enqueued again under a key it holds adds nothing and still resolves), and tells `onJob` of
 * each new job; with a `fault`, its enqueue fails as given.
 */
export function memoryQueue(onJob: (job: Enqueued) => void, fault?: QueueFault): ReportQueue {
  const keys = new Set<string>();
  const failing = faultCounter(fault?.times);
  return {
    name: "memory queue",
    enqueue(report, key) {
      if (fault !== undefined && failing()) {
        // A queue that never answers: only the receiver's deadline ends the wait.
        if (fault.fails === "hangs") return new Promise<void>(() => {});
        return Promise.reject(new Error("queue unreachable (test fault)"));
      }
      if (key === undefined || !keys.has(key)) {
        if (key !== undefined) keys.add(key);
        onJob({ report: JSON.parse(JSON.stringify(report)) as unknown, key });
      }
      return Promise.resolve();
    },
  };
}
