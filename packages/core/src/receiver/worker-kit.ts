// What the queue workers (@reportkit/bullmq, @reportkit/pg-boss) share: which handler takes a
// report, how a parked report waits, a job's trace context, ms option groups, distinct lines.
import { readOptions, shown } from "../base/attorney.js";
import type { RetryLater } from "../process/retry-later.js";
import type { Report } from "../report/schemas.js";
import type { TraceCarrier } from "../store-kit/telemetry.js";
import { HANDLER_OPTIONS } from "./options.js";

/** A report to its kind's handler, or without one the error `fail` makes (a "do not retry"). */
export function workerDispatch<C>(
  who: string,
  options: object,
  fail: (message: string) => Error = (message) => new Error(message),
): (report: Report, ctx: C) => Promise<void> {
  const given = options as Record<string, unknown>;
  const handlers = new Map<string, (report: Report, ctx: C) => unknown>();
  for (const [kind, name] of Object.entries(HANDLER_OPTIONS)) {
    const handler = given[name];
    if (handler === undefined) continue;
    if (typeof handler !== "function") {
      throw new TypeError(`${who}: \`${name}\` must be a function, got ${shown(handler)}.`);
    }
    handlers.set(kind, handler as (report: Report, ctx: C) => unknown);
  }
  if (handlers.size === 0) {
    const names = Object.values(HANDLER_OPTIONS).map((name) => `\`${name}(report, ctx)\``);
    throw new TypeError(`${who}: give at least one handler, ${names.join(", ")}.`);
  }
  return async (report, ctx) => {
    const handler = handlers.get(report.type);
    if (handler === undefined) {
      throw fail(
        `reportkit worker: a ${report.type} report, and this worker has no \`${HANDLER_OPTIONS[report.type]}\` handler: add one, then put the job back with \`reportkit queue retry\`.`,
      );
    }
    await handler(report, ctx);
  };
}

/** How reports whose handler threw RetryLater wait. */
export interface ParkingOptions {
  /** How long after the first RetryLater a report may stay parked, in ms. Default an hour. */
  limitMs?: number;
  /** The first wait when RetryLater names no `afterMs`, in ms; it doubles each time. Default 1000. */
  delayMs?: number;
  /** The longest wait between two runs of a parked report, in ms. Default 60,000. */
  maxDelayMs?: number;
}

export const DEFAULT_PARKING: Readonly<Required<ParkingOptions>> = {
  limitMs: 60 * 60 * 1000,
  delayMs: 1000,
  maxDelayMs: 60 * 1000,
};

/** Where a report stands in its parking, carried in its job from run to run. */
export interface Parked {
  /** When the handler first said "not yet" (ms since the epoch). */
  readonly parkedSince: number;
  readonly parks: number;
}

/** The next wait and parking after `retryLater` at `now`; past `limitMs`, the error instead. */
export function parkAgain(
  parking: Readonly<Required<ParkingOptions>>,
  before: Partial<Parked>,
  retryLater: RetryLater,
  now: number,
): { delayMs: number; parked: Parked } | { error: Error } {
  const parkedSince = before.parkedSince ?? now;
  const parks = before.parks ?? 0;
  if (now - parkedSince >= parking.limitMs) {
    return {
      error: new Error(
        `${retryLater.message} (parked since ${new Date(parkedSince).toISOString()}, past the parking limit of ${parking.limitMs} ms)`,
      ),
    };
  }
  const start = retryLater.afterMs ?? parking.delayMs;
  const delayMs = backoff(start, parks, Math.max(start, parking.maxDelayMs));
  return { delayMs, parked: { parkedSince, parks: parks + 1 } };
}

/** `start` doubled `times` times, at most `max`. */
export function backoff(start: number, times: number, max: number): number {
  return Math.min(max, start * 2 ** Math.min(times, 52));
}

/** An option group of ms values (`retry`, `parking`), each a whole number above 0, with defaults. */
export function msGroup<T extends Record<string, number>>(
  who: string,
  option: string,
  given: unknown,
  defaults: Readonly<T>,
): Readonly<T> {
  if (given === undefined) return defaults;
  const names = Object.keys(defaults);
  const read = readOptions(`${who}: ${option}`, given as Record<string, unknown>, {
    example: `{ ${names.map((n) => `${n}: ${defaults[n]}`).join(", ")} }`,
    known: names,
  });
  return Object.fromEntries(
    names.map((name) => [name, read.positiveMs(name, defaults[name] as number)]),
  ) as T;
}

/** The trace context a job carries: string values only, or none. */
export function traceOf(trace: unknown): TraceCarrier | undefined {
  if (typeof trace !== "object" || trace === null) return undefined;
  return Object.fromEntries(Object.entries(trace).filter(([, value]) => typeof value === "string"));
}

/** A logger that prints an error once, not once per reconnection attempt or poll. */
export function distinctLines(prefix: string): (error: Error) => void {
  let last = "";
  return (error) => {
    if (error.message === last) return;
    last = error.message;
    console.error(`${prefix}: ${error.message}`);
  };
}
