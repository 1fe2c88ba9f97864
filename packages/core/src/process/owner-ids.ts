/**
 * Owner ids for dedupe claims, unique across processes (the store may be shared): one random id
 * per receiver, drawn at its first claim, then a count.
 */
export function ownerIds(): { next(): string } {
  let instance: string | undefined;
  let count = 0;
  return {
    next() {
      instance ??= globalThis.crypto.randomUUID();
      count += 1;
      return `${instance}:${count}`;
    },
  };
}
