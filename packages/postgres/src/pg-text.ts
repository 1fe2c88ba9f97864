// Postgres `text` cannot hold the NUL character, and a report may carry one (a JSON "\u0000"):
// text that is only shown (a URL, an error, a status) is stored with each NUL written out. Keys
// are kept by wire's `storedKey` instead, which never merges two.

/** Display text (a URL, an error) without NUL: each one written as `\u0000`. */
export function withoutNul(text: string): string {
  return text.includes("\0") ? text.replaceAll("\0", "\\u0000") : text;
}
