// The receiver stays synchronous until something really is asynchronous: these helpers let a
// step return either a value or a promise of it, and bound a promise by a deadline.

/** A value now, or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === "function"
  );
}

/** Resolves as `promise` does, or rejects once `ms` passed first. */
export function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** For a rejection nobody waits for (an observer's, a release's): handled, so never unhandled. */
export function ignore(): void {}
