// The checks a store's factory makes of its options, once, when it is called: one set for
// every store (memoryDedupe, the store packages' stores and journals, the queue packages'
// queue, worker and tools), so that each refusal reads the same way:
//   "<who>: `<name>` must be …, got …."
// where <who> is the factory ("postgresInbox"). A refusal shows what it got: never read with
// these an option that may hold a secret (a URL with a password); the connection options have
// checks of their own.

/** A factory's options, as the checks read them. */
export type StoreOptions = Readonly<Record<string, unknown>>;

/** What `readOptions` checks of the options object itself. */
export interface OptionRules<O> {
  /** A call that works, shown when the options are not an object, e.g. `memoryDedupe({ maxKeys: 100_000 })`. */
  readonly example: string;
  /** Every option's name: any other key is refused, naming these (a misspelt option is never ignored). */
  readonly known: readonly (keyof O & string)[];
  /** Keys an earlier version took, each with its fix; refused before the unknown ones. */
  readonly renamed?: Readonly<Record<string, string>>;
}

/** Reads one option at a time, `undefined` giving the fallback. @throws TypeError naming `who` and the option. */
export interface OptionReader<O> {
  /** The factory, e.g. "postgresInbox": what every refusal starts with. */
  readonly who: string;
  /** A duration in whole milliseconds above 0: "must be a whole number of milliseconds above 0". */
  positiveMs(name: keyof O & string, fallback: number): number;
  /** A whole number from `range.min` to `range.max`, above 0 by default. */
  wholeNumber(
    name: keyof O & string,
    fallback: number,
    range?: { readonly min: number; readonly max: number },
  ): number;
  /** A string, a non-empty one with `nonEmpty`. */
  string(
    name: keyof O & string,
    fallback: string,
    options?: { readonly nonEmpty?: boolean },
  ): string;
  /** A function (a handler, a callback), or undefined when not given. */
  callback<K extends keyof O & string>(name: K): O[K] | undefined;
  /** true or false. */
  flag(name: keyof O & string, fallback: boolean): boolean;
  /** One of `choices`, e.g. "full" or "redacted". */
  oneOf<C extends string>(name: keyof O & string, choices: readonly C[], fallback: C): C;
}

/**
 * Checks a factory's options object (an object; no key an earlier version took, each refused
 * with its fix; no unknown key) and gives a reader of its options.
 * @throws TypeError e.g. "memoryDedupe: unknown option `ttl`; the options are ttlMs, maxKeys, leaseMs."
 *
 * @example
 * const read = readOptions("memoryDedupe", options, {
 *   example: "memoryDedupe({ maxKeys: 100_000 })",
 *   known: ["ttlMs", "maxKeys", "leaseMs"],
 * });
 * const ttlMs = read.positiveMs("ttlMs", DEFAULT_DEDUPE_TTL_MS);
 */
export function readOptions<O extends object>(
  who: string,
  options: O,
  rules: OptionRules<O>,
): OptionReader<O> {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError(
      `${who}: pass an options object, e.g. ${rules.example}, got ${shown(options)}.`,
    );
  }
  const given = options as StoreOptions;
  for (const [name, fix] of Object.entries(rules.renamed ?? {})) {
    // By the key, not its value: an old key given an unset environment variable is still it.
    if (Object.hasOwn(given, name)) throw new TypeError(`${who}: \`${name}\` was renamed: ${fix}.`);
  }
  const known: readonly string[] = rules.known;
  for (const name of Object.keys(given)) {
    if (!known.includes(name)) {
      throw new TypeError(
        `${who}: unknown option \`${name}\`; the options are ${known.join(", ")}.`,
      );
    }
  }
  const refuse = (name: string, wanted: string) =>
    new TypeError(`${who}: \`${name}\` must be ${wanted}, got ${shown(given[name])}.`);

  return {
    who,
    positiveMs(name, fallback) {
      const value = given[name];
      if (value === undefined) return fallback;
      if (!isWhole(value) || value <= 0) {
        throw refuse(name, "a whole number of milliseconds above 0");
      }
      return value;
    },
    wholeNumber(name, fallback, range) {
      const value = given[name];
      if (value === undefined) return fallback;
      const { min, max } = range ?? { min: 1, max: Number.MAX_SAFE_INTEGER };
      if (!isWhole(value) || value < min || value > max) {
        throw refuse(
          name,
          range === undefined ? "a whole number above 0" : `a whole number from ${min} to ${max}`,
        );
      }
      return value;
    },
    string(name, fallback, { nonEmpty = false } = {}) {
      const value = given[name];
      if (value === undefined) return fallback;
      if (typeof value !== "string" || (nonEmpty && value === "")) {
        throw refuse(name, nonEmpty ? "a non-empty string" : "a string");
      }
      return value;
    },
    callback(name) {
      const value = given[name];
      if (value !== undefined && typeof value !== "function") throw refuse(name, "a function");
      return value as (typeof options)[typeof name] | undefined;
    },
    flag(name, fallback) {
      const value = given[name];
      if (value === undefined) return fallback;
      if (typeof value !== "boolean") throw refuse(name, "true or false");
      return value;
    },
    oneOf(name, choices, fallback) {
      const value = given[name];
      if (value === undefined) return fallback;
      if (typeof value !== "string" || !(choices as readonly string[]).includes(value)) {
        throw refuse(name, choices.map((c) => JSON.stringify(c)).join(" or "));
      }
      return value as (typeof choices)[number];
    },
  };
}

/** What a refusal says it got: a number or string as written (strings cut), else its kind. */
export function shown(value: unknown): string {
  if (typeof value === "string") {
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  }
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") {
    return String(value);
  }
  if (value === undefined || value === null) return String(value);
  if (Array.isArray(value)) return "a list";
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "an invalid Date" : "a Date";
  const kind = typeof value;
  return kind === "object" ? "an object" : `a ${kind}`;
}

function isWhole(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value);
}
