/**
 * Keys, each with an expiry and, while claimed, its owner: at most `capacity` of them, the
 * least recently added dropped first. A hash table over typed arrays that holds a 96-bit hash
 * of each key instead of the key: no string per key stays on the heap for the garbage
 * collector to copy and mark, and a lookup reads a bucket and an entry, not a key string
 * elsewhere in memory. Its arrays take about 45 bytes per key of capacity once grown (4.5 MB
 * for 100,000, room for holes included), where a Map of the key strings took about 157.
 *
 * Two different keys read as one only if all 96 bits agree: with 100,000 keys held, about one
 * chance in 10^24 per lookup. The seeds are random per table, so no key can be chosen in
 * advance to collide with another.
 *
 * Entries are appended in the order they are added and chained per bucket through `next`; a
 * removed entry leaves a hole, and once the arrays are full the live entries are moved down,
 * in order, over the holes (with room for a quarter of the capacity more, so that happens at
 * most once per capacity / 4 additions). An entry's hash, chain link and expiry share 32 bytes of
 * one buffer, so a lookup reads one line of memory for the bucket and one for the entry.
 */
export class KeyTable {
  readonly #capacity: number;
  /** The arrays' length once grown: the capacity and room for holes. */
  readonly #fullSize: number;
  /** Drawn at the first key: Workers allow no random values while a module loads. */
  #seeds: Uint32Array | undefined;
  /**
   * Per entry, 8 slots: the hash's three lanes, the next entry in the bucket (or -1), the
   * expiry (two slots, read through #floats), and its claim's place in #owners plus 1 (0: none).
   */
  #ints: Int32Array;
  /** The same buffer: slot 2 of each entry's 4 is when it expires (ms, > 0); 0: a hole. */
  #floats: Float64Array;
  /** The owners of the claims held now (a few: the requests in progress), by place. */
  readonly #owners: (string | undefined)[] = [];
  /** Places in #owners free again. */
  readonly #freeOwners: number[] = [];
  /** The first entry of each bucket, or -1. */
  #buckets: Int32Array;
  #mask: number;
  /** How many entries the buffer holds. */
  #size: number;
  /** The oldest entry that may still be live; entries before it are holes. */
  #head = 0;
  /** Where the next entry is added. */
  #end = 0;
  #live = 0;
  // The hash of the key hashed last: a claim and its complete look up the same key.
  #lastKey: string | undefined;
  #ha = 0;
  #hb = 0;
  #hc = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
    this.#fullSize = capacity + Math.max(16, capacity >> 2);
    // Grown as keys come in, so a receiver that sees few reports holds a small table.
    this.#size = Math.min(this.#fullSize, 1024);
    const buffer = new ArrayBuffer(this.#size * ENTRY_BYTES);
    this.#ints = new Int32Array(buffer);
    this.#floats = new Float64Array(buffer);
    this.#buckets = new Int32Array(bucketCount(this.#size)).fill(-1);
    this.#mask = this.#buckets.length - 1;
  }

  /** The key's entry (an index for the methods below), or -1 if it has none. */
  find(key: string): number {
    if (key !== this.#lastKey) this.#hash(key);
    const ints = this.#ints;
    let at = this.#buckets[this.#ha & this.#mask] as number;
    while (at !== -1) {
      const i = at * 8;
      if (ints[i] === this.#ha && ints[i + 1] === this.#hb && ints[i + 2] === this.#hc) return at;
      at = ints[i + 3] as number;
    }
    return -1;
  }

  expiresAt(entry: number): number {
    return this.#floats[entry * 4 + 2] as number;
  }

  owner(entry: number): string | undefined {
    const place = this.#ints[entry * 8 + 6] as number;
    return place === 0 ? undefined : this.#owners[place - 1];
  }

  /** Changes an entry in place (it keeps its age): a new expiry, its claim's owner or none. */
  update(entry: number, expiresAt: number, owner?: string): void {
    this.#floats[entry * 4 + 2] = expiresAt;
    this.#setOwner(entry, owner);
  }

  /**
   * Adds the key as the newest entry, to expire at `expiresAt` (> 0), dropping the oldest if
   * the table holds `capacity` keys. The key must have no entry (`find` gave -1, or its entry
   * was removed).
   */
  add(key: string, expiresAt: number, owner?: string): void {
    if (key !== this.#lastKey) this.#hash(key);
    if (this.#live >= this.#capacity) this.#removeOldest();
    if (this.#end === this.#size) {
      this.#relayout(Math.min(this.#fullSize, Math.max(this.#size, this.#live * 2)));
    }
    const at = this.#end++;
    this.#link(at, this.#ha, this.#hb, this.#hc, expiresAt);
    this.#ints[at * 8 + 6] = 0;
    this.#setOwner(at, owner);
    this.#live++;
  }

  /** Unlinks the entry from its bucket and leaves a hole in its place. */
  remove(entry: number): void {
    const ints = this.#ints;
    const bucket = (ints[entry * 8] as number) & this.#mask;
    const next = ints[entry * 8 + 3] as number;
    let previous = this.#buckets[bucket] as number;
    if (previous === entry) this.#buckets[bucket] = next;
    else {
      while (ints[previous * 8 + 3] !== entry) previous = ints[previous * 8 + 3] as number;
      ints[previous * 8 + 3] = next;
    }
    this.#floats[entry * 4 + 2] = 0;
    this.#setOwner(entry, undefined);
    this.#live--;
  }

  #setOwner(entry: number, owner: string | undefined): void {
    const place = this.#ints[entry * 8 + 6] as number;
    if (place !== 0) {
      if (owner !== undefined) {
        this.#owners[place - 1] = owner;
        return;
      }
      this.#owners[place - 1] = undefined;
      this.#freeOwners.push(place - 1);
      this.#ints[entry * 8 + 6] = 0;
    } else if (owner !== undefined) {
      const free = this.#freeOwners.pop() ?? this.#owners.push(undefined) - 1;
      this.#owners[free] = owner;
      this.#ints[entry * 8 + 6] = free + 1;
    }
  }

  /** Writes entry `at` and puts it first in its bucket. */
  #link(at: number, a: number, b: number, c: number, expiresAt: number): void {
    const i = at * 8;
    const bucket = a & this.#mask;
    this.#ints[i] = a;
    this.#ints[i + 1] = b;
    this.#ints[i + 2] = c;
    this.#ints[i + 3] = this.#buckets[bucket] as number;
    this.#floats[at * 4 + 2] = expiresAt;
    this.#buckets[bucket] = at;
  }

  #removeOldest(): void {
    while ((this.#floats[this.#head * 4 + 2] as number) === 0) this.#head++;
    this.remove(this.#head);
    this.#head++;
  }

  /**
   * Moves the live entries, in order, to the start of a buffer of `size` entries (the same one
   * when the size stays: each moves down, never over one still to move), then rebuilds the
   * buckets, since entries changed places.
   */
  #relayout(size: number): void {
    const ints = this.#ints;
    const floats = this.#floats;
    if (size !== this.#size) {
      const buffer = new ArrayBuffer(size * ENTRY_BYTES);
      this.#ints = new Int32Array(buffer);
      this.#floats = new Float64Array(buffer);
      this.#buckets = new Int32Array(bucketCount(size));
      this.#mask = this.#buckets.length - 1;
      this.#size = size;
    }
    this.#buckets.fill(-1);
    let to = 0;
    for (let at = this.#head; at < this.#end; at++) {
      const expiresAt = floats[at * 4 + 2] as number;
      if (expiresAt === 0) continue;
      const i = at * 8;
      this.#link(to, ints[i] as number, ints[i + 1] as number, ints[i + 2] as number, expiresAt);
      this.#ints[to * 8 + 6] = ints[i + 6] as number;
      to++;
    }
    // What is left past the live entries reads as holes.
    this.#floats.fill(0, to * 4, this.#end * 4);
    this.#head = 0;
    this.#end = to;
  }

  /** Three FNV-1a lanes with their own seeds and primes, each finished by murmur3's mix. */
  #hash(key: string): void {
    this.#seeds ??= globalThis.crypto.getRandomValues(new Uint32Array(3));
    const seeds = this.#seeds;
    let a = (seeds[0] as number) ^ key.length;
    let b = seeds[1] as number;
    let c = seeds[2] as number;
    for (let i = 0; i < key.length; i++) {
      const code = key.charCodeAt(i);
      a = Math.imul(a ^ code, 0x01000193);
      b = Math.imul(b ^ code, 0x5bd1e995);
      c = Math.imul(c ^ code, 0x27d4eb2d);
    }
    this.#ha = mix(a);
    this.#hb = mix(b);
    this.#hc = mix(c);
    this.#lastKey = key;
  }
}

/** An entry's bytes: three hash lanes and a chain link (4 each), an expiry (8), an owner's place (4), 4 spare. */
const ENTRY_BYTES = 32;

/** A power of two at least `size`: about one entry per bucket when full. */
function bucketCount(size: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(size, 2)));
}

/** murmur3's 32-bit finalizer: every input bit moves every output bit. */
function mix(h: number): number {
  let x = h ^ (h >>> 16);
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return x ^ (x >>> 16);
}
