// The one mechanism that checks options, once, when a factory is called (the receiver's, every
// store's, queue's and worker's): each refusal reads "<who>: `<name>` must be …, got …." (a
// group's `<name>` is a path: `body.maxBytes`). A refusal shows what it got: never read with
// these an option that may hold a secret (a URL with a password, the secret itself).

/** What `readOptions` checks of the options object itself. */
export interface OptionRules<O> {
  /** A call that works, shown when the options are not an object. */
  readonly example: string;
  /** Every option's name: any other key is refused (a misspelt option is never ignored). */
  readonly known: readonly Name<O>[];
  /** Keys an earlier version took, each with its fix; refused before the unknown ones. */
  readonly renamed?: Readonly<Record<string, string>>;
  /** Said after the list of options when a key is unknown (e.g. where a mount path goes). */
  readonly hint?: string;
}

type Name<O> = keyof O & string;
type Range = { readonly min: number; readonly max: number };

/** Reads one option at a time, `undefined` giving the fallback. @throws TypeError naming it */
export interface OptionReader<O> {
  /** The factory, e.g. "postgresInbox": what every refusal starts with. */
  readonly who: string;
  /** A duration in whole milliseconds above 0: "must be a whole number of milliseconds above 0". */
  positiveMs(name: Name<O>, fallback: number): number;
  /** A whole number from `range.min` to `range.max`, above 0 by default. */
  wholeNumber(name: Name<O>, fallback: number, range?: Range): number;
  /** A string, a non-empty one with `nonEmpty`. */
  string(name: Name<O>, fallback: string, options?: { readonly nonEmpty?: boolean }): string;
  /** A function (a handler, a callback), or undefined when not given. */
  callback<K extends Name<O>>(name: K): O[K] | undefined;
  flag(name: Name<O>, fallback: boolean): boolean;
  /** One of `choices`, e.g. "full" or "redacted". */
  oneOf<C extends string>(name: Name<O>, choices: readonly C[], fallback: C): C;
  /** A value `accepts` takes (a store by its methods, say), or undefined when not given. */
  check<K extends Name<O>>(
    name: K,
    accepts: (value: unknown) => boolean,
    wanted: string,
  ): O[K] | undefined;
  /** The error for option `name`: "must be <wanted>, got <what it is>". */
  refusal(name: Name<O>, wanted: string): TypeError;
  /** A group given as an object (`body: { maxBytes }`), its refusals naming `<group>.<option>`. */
  group<G extends object>(name: Name<O>, rules: OptionRules<G>): OptionReader<G> | undefined;
}

/** Checks a factory's options object (no old, no unknown key) and gives a reader of its options. */
export function readOptions<O extends object>(
  who: string,
  options: O,
  rules: OptionRules<O>,
): OptionReader<O> {
  return reader(who, "", options, rules);
}

const POSITIVE_MS = "a whole number of milliseconds above 0";

function reader<O extends object>(
  who: string,
  path: string,
  options: O,
  rules: OptionRules<O>,
): OptionReader<O> {
  const where = path === "" ? "options" : `\`${path.slice(0, -1)}\``;
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError(
      `${who}: pass ${path === "" ? "an options object" : `${where} as an object`}, e.g. ${rules.example}, got ${shown(options)}.`,
    );
  }
  const given = options as Readonly<Record<string, unknown>>;
  for (const [name, fix] of Object.entries(rules.renamed ?? {})) {
    // By the key, not its value: an old key given an unset environment variable is still it.
    if (Object.hasOwn(given, name)) {
      throw new TypeError(`${who}: \`${path}${name}\` was renamed: ${fix}.`);
    }
  }
  const known: readonly string[] = rules.known;
  for (const name of Object.keys(given)) {
    if (known.includes(name)) continue;
    const near = known.find((option) => closeTo(name, option));
    throw new TypeError(
      `${who}: unknown option \`${path}${name}\`${near === undefined ? "" : ` (did you mean \`${path}${near}\`?)`}; the ${path === "" ? "options" : `options of ${where}`} are ${known.join(", ")}.${rules.hint === undefined ? "" : ` ${rules.hint}`}`,
    );
  }
  const refusal = (name: string, wanted: string) =>
    new TypeError(`${who}: \`${path}${name}\` must be ${wanted}, got ${shown(given[name])}.`);
  /** The option when `accepts` takes it, the fallback when it is not given, else its refusal. */
  const read = <T>(name: string, fallback: T, accepts: (v: unknown) => boolean, wanted: string) => {
    const value = given[name];
    if (value === undefined) return fallback;
    if (!accepts(value)) throw refusal(name, wanted);
    return value as T;
  };

  return {
    who,
    refusal,
    positiveMs: (name, fallback) =>
      // setTimeout takes at most 2^31 - 1 ms.
      read(name, fallback, (v) => isWhole(v) && v > 0 && v <= 2_147_483_647, POSITIVE_MS),
    wholeNumber(name, fallback, range) {
      const { min, max } = range ?? { min: 1, max: Number.MAX_SAFE_INTEGER };
      const wanted =
        range === undefined ? "a whole number above 0" : `a whole number from ${min} to ${max}`;
      return read(name, fallback, (v) => isWhole(v) && v >= min && v <= max, wanted);
    },
    string(name, fallback, { nonEmpty = false } = {}) {
      const wanted = nonEmpty ? "a non-empty string" : "a string";
      return read(name, fallback, (v) => typeof v === "string" && !(nonEmpty && v === ""), wanted);
    },
    callback: (name) => read(name, undefined, (v) => typeof v === "function", "a function"),
    flag: (name, fallback) => read(name, fallback, (v) => typeof v === "boolean", "true or false"),
    oneOf(name, choices, fallback) {
      const wanted = choices.map((c) => JSON.stringify(c)).join(" or ");
      return read(name, fallback, (v) => (choices as readonly unknown[]).includes(v), wanted);
    },
    check: (name, accepts, wanted) => read(name, undefined, accepts, wanted),
    group<G extends object>(name: Name<O>, groupRules: OptionRules<G>) {
      const value = given[name];
      if (value === undefined) return undefined;
      return reader(who, `${path}${name}.`, value as G, groupRules);
    },
  };
}

/** What a refusal says it got: a number or string as written (strings cut), else its kind. */
export function shown(value: unknown): string {
  if (typeof value === "string") {
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  }
  const kind = typeof value;
  if (value == null || kind === "number" || kind === "boolean" || kind === "bigint") {
    return String(value);
  }
  if (Array.isArray(value)) return "a list";
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "an invalid Date" : "a Date";
  return kind === "object" ? "an object" : `a ${kind}`;
}

/** Whether `value` is an object with these methods (a store, a queue, a logger). */
export function hasMethods(value: unknown, ...names: string[]): boolean {
  if (typeof value !== "object" || value === null) return false;
  return names.every((name) => typeof (value as Record<string, unknown>)[name] === "function");
}

function isWhole(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value);
}

/** Same letters ignoring case, or one edit apart: a likely misspelling. */
function closeTo(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x === y) return true;
  if (Math.abs(x.length - y.length) > 1) return false;
  let i = 0;
  while (i < x.length && x[i] === y[i]) i++;
  const rest = (s: string, skip: number) => s.slice(i + skip);
  return rest(x, 1) === rest(y, 1) || rest(x, 1) === rest(y, 0) || rest(x, 0) === rest(y, 1);
}
