// Postgres `text` cannot hold the NUL character, and a report may carry one (a JSON "\u0000" in
// its id): stored as it is, every claim of it would fail (503, retried forever) and it could not
// be journaled. A key with NUL is stored escaped instead, under a mark no key without NUL starts
// with in practice; every other key is stored as it is, so no existing key changes.

/** What marks an escaped key. */
const ESCAPED = "nul-escaped:";

/** A report's key as the inbox and the journal store it. */
export function storedKey(key: string): string {
  if (!key.includes("\0")) return key;
  return ESCAPED + key.replaceAll("\\", "\\\\").replaceAll("\0", "\\0");
}

/** Display text (a URL, an error) without NUL: each one written as `\u0000`. */
export function withoutNul(text: string): string {
  return text.includes("\0") ? text.replaceAll("\0", "\\u0000") : text;
}
