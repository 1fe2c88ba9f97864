// Every bound on a wait in the receiver is one `within`: a timer of its own, cleared when the
// wait ends first.

/** Settles as `promise` does, or as `onTimeout` gives if `ms` pass first (`promise` goes on). */
export function within<T, F = T>(
  promise: PromiseLike<T>,
  ms: number,
  onTimeout: () => F | PromiseLike<F>,
): Promise<T | F> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<F>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(onTimeout());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** `within`, rejecting with "no answer within <ms> ms" on timeout: for a store or queue call. */
export function answeredWithin<T>(promise: PromiseLike<T>, ms: number): Promise<T> {
  return within(promise, ms, () => {
    throw new Error(`no answer within ${ms} ms`);
  });
}
