// Errors whose stack nobody reads (refusals, JSON.parse's SyntaxError on a bad body) are built
// with Error.stackTraceLimit at 0: capturing the frames is most of what they cost, and a flood of
// bad requests must not burn a receiver's CPU. Restored at once: no other code sees the change.

type StackLimit = number | typeof NO_LIMIT;
const NO_LIMIT = Symbol("no stackTraceLimit");
const errorClass = Error as { stackTraceLimit?: number };

/** Sets Error.stackTraceLimit to 0; returns what it was, or undefined where it cannot be set. */
export function hideStack(): StackLimit | undefined {
  const limit = errorClass.stackTraceLimit;
  try {
    errorClass.stackTraceLimit = 0;
  } catch {
    return undefined; // frozen intrinsics: stacks are captured as usual
  }
  return limit ?? NO_LIMIT;
}

export function restoreStack(limit: StackLimit | undefined): void {
  if (limit === undefined) return;
  if (limit === NO_LIMIT) delete errorClass.stackTraceLimit;
  else errorClass.stackTraceLimit = limit;
}
