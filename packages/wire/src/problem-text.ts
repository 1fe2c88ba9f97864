// The wording the template problems share: how a value is named, how a list is read out, and
// whether a key is a field mistyped ("did you mean").

/** A value as a problem names it: a string quoted, anything else by its kind. */
export function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return typeof value === "object" ? "an object" : String(value);
}

/** "a, b or c" ("and" if asked); one item alone as it is. */
export function listOf(items: readonly string[], conjunction: "or" | "and" = "or"): string {
  return items.length < 2
    ? items.join("")
    : `${items.slice(0, -1).join(", ")} ${conjunction} ${items[items.length - 1]}`;
}

/** The first of `fields` that `key` looks like a typo of, for a "did you mean" hint. */
export function didYouMean<T extends string>(fields: readonly T[], key: string): T | undefined {
  return fields.find((field) => similar(field, key));
}

/** A field name mistyped: another case, or at most two letters wrong, missing or extra. */
function similar(field: string, key: string): boolean {
  const a = field;
  const b = key.toLowerCase();
  if (Math.abs(a.length - b.length) > 2) return false;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
    }
    previous = row;
  }
  return (previous[b.length] as number) <= 2;
}
