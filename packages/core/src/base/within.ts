// Every bound on a wait in the receiver is one `within`: a timer of its own, cleared when the
// wait ends first.

/** Settles as `promise` does, or as `onTimeout` gives if `ms` pass first (`promise` goes on). */
export function within<T, F = T>(
  promise: PromiseLike<T>,
  ms: number,
  onTimeout: () => F | PromiseLike<F>,
): Promise<T | F> {
  // One promise and one timer: Promise.race with a second promise and a finally made three
  // more promises a wait, two waits a report.
  return new Promise<T | F>((resolve, reject) => {
    // A throwing onTimeout rejects: the promise made here exists only once the time is up.
    const timer = setTimeout(() => resolve(new Promise<F>((r) => r(onTimeout()))), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
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
