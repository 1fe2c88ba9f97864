// Body-read deadlines (`bodyTimeoutMs`) kept in one set and checked by one interval, instead of
// a timer per request: a setTimeout and its clearTimeout for every report cost more than the
// rest of reading a small body (measured: about 8% of a Hono report's CPU). The interval runs
// only while reads are pending and stops at the first sweep that finds none; a deadline fires
// at most SWEEP_MS late, which for a deadline of seconds is nothing.

/** How often pending reads are checked, in ms. */
const SWEEP_MS = 50;

export interface BodyDeadline {
  readonly at: number;
  readonly expire: () => void;
}

const pending = new Set<BodyDeadline>();
let sweeper: ReturnType<typeof setInterval> | undefined;

/** Calls `expire` once `ms` passed, unless `endDeadline` came first. */
export function startDeadline(ms: number, expire: () => void): BodyDeadline {
  const deadline = { at: Date.now() + ms, expire };
  pending.add(deadline);
  if (sweeper === undefined) {
    sweeper = setInterval(sweep, Math.min(SWEEP_MS, ms));
    // A pending read's own socket keeps a Node process alive; the interval must not.
    (sweeper as { unref?: () => void }).unref?.();
  }
  return deadline;
}

export function endDeadline(deadline: BodyDeadline): void {
  pending.delete(deadline);
}

function sweep(): void {
  if (pending.size === 0) {
    clearInterval(sweeper);
    sweeper = undefined;
    return;
  }
  const now = Date.now();
  for (const deadline of pending) {
    if (deadline.at > now) continue;
    pending.delete(deadline);
    deadline.expire();
  }
}
