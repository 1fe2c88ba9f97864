// Every bound on a wait in the receiver (a body's arrival, the handler's deadline, the queue's
// enqueue, a journal write, a health check, close's wait, a refused body's drain) is one
// `within`, and every `within` is a deadline in one set checked by one interval, rather than a
// setTimeout and clearTimeout per request: those cost more than the rest of reading a small body
// (measured: about 8% of a Hono report's CPU). The interval runs only while deadlines are
// pending and stops at the first sweep that finds none; a deadline fires at most SWEEP_MS late,
// which for a bound of seconds is nothing. Cloudflare Workers is the exception: there a timer
// (and a promise it settles) belongs to the request that made it, and one request may not settle
// another's, so each deadline is a timer of its own request.

/** How often pending deadlines are checked, in ms. */
const SWEEP_MS = 50;

interface Deadline {
  readonly at: number;
  readonly expire: () => void;
}

const pending = new Set<Deadline>();
let sweeper: ReturnType<typeof setInterval> | undefined;
let sweepEvery = SWEEP_MS;

/** Whether one interval may serve every request (everywhere but Workers). */
const SHARED_TIMERS =
  (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent !==
  "Cloudflare-Workers";

/** Calls `expire` once `ms` passed, unless the returned `end` was called first. */
export function startDeadline(ms: number, expire: () => void): () => void {
  if (!SHARED_TIMERS) {
    const timer = setTimeout(expire, ms);
    return () => clearTimeout(timer);
  }
  const deadline: Deadline = { at: Date.now() + ms, expire };
  pending.add(deadline);
  const every = Math.max(1, Math.min(SWEEP_MS, ms));
  if (sweeper === undefined || every < sweepEvery) {
    clearInterval(sweeper);
    sweepEvery = every;
    sweeper = setInterval(sweep, every);
  }
  return () => {
    pending.delete(deadline);
  };
}

function sweep(): void {
  if (pending.size === 0) {
    clearInterval(sweeper);
    sweeper = undefined;
    sweepEvery = SWEEP_MS;
    return;
  }
  const now = Date.now();
  for (const deadline of pending) {
    if (deadline.at > now) continue;
    pending.delete(deadline);
    deadline.expire();
  }
}

/**
 * Settles as `promise` does, or with what `onTimeout` gives once `ms` passed first (a value, or
 * a rejection when it throws). `promise` goes on either way; its late outcome is ignored.
 */
export function within<T, F = T>(
  promise: PromiseLike<T>,
  ms: number,
  onTimeout: () => F | PromiseLike<F>,
): Promise<T | F> {
  return new Promise<T | F>((resolve, reject) => {
    let settled = false;
    const end = startDeadline(ms, () => {
      if (settled) return;
      settled = true;
      try {
        resolve(onTimeout());
      } catch (error) {
        reject(error);
      }
    });
    promise.then(
      (value) => {
        if (settled) return;
        settled = true;
        end();
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        end();
        reject(error);
      },
    );
  });
}

/** `within`, rejecting with "no answer within <ms> ms" on timeout: for a store or queue call. */
export function answeredWithin<T>(promise: PromiseLike<T>, ms: number): Promise<T> {
  return within(promise, ms, () => {
    throw new Error(`no answer within ${ms} ms`);
  });
}
