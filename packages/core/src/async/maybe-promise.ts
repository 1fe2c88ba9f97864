// The receiver stays synchronous until something really is asynchronous (a body still to be
// read, a store across the network, a handler that returns a promise). With the body in hand,
// the memory store and a handler that returns a value, a reply needs no promise and no
// microtask: an await per stage would cost more than parsing the report (see docs/performance.md).
// Every stage therefore returns a `MaybePromise`, and `andThen` chains them without making a
// promise out of a value. This is the one place that reasoning is written down.

/** A value now, or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === "function"
  );
}

/**
 * `next(value)` now when `value` is one, once it resolves when it is a promise. `onError`
 * takes a rejection (or, for a value, nothing: a synchronous throw of `next` propagates).
 */
export function andThen<T, R>(
  value: MaybePromise<T>,
  next: (value: T) => MaybePromise<R>,
  onError?: (error: unknown) => MaybePromise<R>,
): MaybePromise<R> {
  if (!isThenable(value)) return next(value);
  return (value as Promise<T>).then(next, onError);
}

/** For a rejection nobody waits for (an observer's, a release's): handled, so never unhandled. */
export function ignore(): void {}
