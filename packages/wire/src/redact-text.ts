// The text-level redaction rules reportkit's packages share, once: phone numbers (a run of
// digits as long as a phone number's, however written), credentials by the name they come under,
// and text made safe to print on one line. Core's journal and log, the client's and the CLI's
// output all read a value through these.

/** What a phone number or a credential is replaced with. */
export const REDACTED = "[redacted]";

// A date, or a date and time, as the provider writes them: kept, so a journal entry still says
// when. Only plausible dates, so that a phone number's groups are never read as one.
const DATE_TIME =
  "(?:19|20)\\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])(?:[ T]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?)?";
// Seven or more digits, with at most two separators (space, dash, dot, parentheses) between any
// two: "919876543210", "+91 98765-43210", "(987) 654.3210". A leading "+" is taken along.
const PHONE = "\\+?(?:\\(\\d{1,5}\\)[ .-]{0,2})?\\d(?:[ .()-]{0,2}\\d){6,}";
const DATE_OR_PHONE = new RegExp(`(${DATE_TIME})|${PHONE}`, "g");

/**
 * Every run of seven or more digits in `text` (a phone number, however written: spaces, dashes,
 * dots, parentheses) replaced by `marker`; dates and times ("2021-04-09 16:27:51") kept.
 * @example
 * maskDigits("called +91-98765-43210 at 2021-04-09 16:27:51"); // "called [redacted] at 2021-04-09 16:27:51"
 */
export function maskDigits(text: string, marker: string = REDACTED): string {
  return text.replace(DATE_OR_PHONE, (match, date: string | undefined) =>
    date === undefined ? marker : match,
  );
}

/**
 * Whether a key (of a query, a form or a JSON object) names a credential: its value is never
 * kept or printed. The provider's verification sends `token` and `validation_key`; presigned
 * URLs carry a signature and a credential.
 */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}
const SECRET_KEY =
  /^(?:token|secret|password|passwd|pwd|api[_-]?key|apikey|key|access[_-]?token|auth|authorization|validation[_-]?key|signature|sig|x-amz-signature|x-amz-credential|x-amz-security-token)$/i;

/**
 * A query string (or a urlencoded form) with credential values redacted; with `numbers`, the
 * values of `phoneKeys` too, and every phone-like digit run in a key or a value masked.
 */
export function redactQuery(
  query: string,
  phoneKeys: ReadonlySet<string> = new Set(),
  numbers = true,
): string {
  const mask = numbers ? maskDigits : (text: string) => text;
  const redacted = new URLSearchParams();
  for (const [key, value] of new URLSearchParams(query)) {
    const hidden = value !== "" && (isSecretKey(key) || (numbers && phoneKeys.has(key)));
    redacted.append(mask(key), hidden ? REDACTED : mask(value));
  }
  return redacted.toString();
}

/** A URL (or path and query) with its query redacted as `redactQuery` does, its path masked. */
export function redactUrl(url: string, phoneKeys?: ReadonlySet<string>): string {
  const mark = url.indexOf("?");
  const path = maskDigits(mark === -1 ? url : url.slice(0, mark));
  return mark === -1 ? path : `${path}?${redactQuery(url.slice(mark + 1), phoneKeys)}`;
}

/**
 * A URL (or path and query) with only its credentials' values redacted (`?token=`, a key, a
 * signature): what a handler's `ctx.url` gives, the rest as it came.
 */
export function withoutCredentials(url: string): string {
  const mark = url.indexOf("?");
  if (mark === -1) return url;
  const params = new URLSearchParams(url.slice(mark + 1));
  let found = false;
  for (const [key, value] of params) {
    if (value !== "" && isSecretKey(key)) {
      params.set(key, REDACTED);
      found = true;
    }
  }
  return found ? `${url.slice(0, mark)}?${params.toString()}` : url;
}

// What a terminal may take as a command, or shows other than as written: C0 controls (ESC
// starts a title change, a clipboard write, an erase; BEL ends them; CR overwrites the line),
// DEL, C1 controls (CSI does the same as ESC [ in one byte), the Unicode line and paragraph
// separators, and the bidirectional controls (U+061C, U+200E/F, U+202A-E, U+2066-9), which
// reorder how the rest of a line is shown: a report id could make "m-1  failed" read otherwise.
const UNSAFE =
  "\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069";
const UNSAFE_IN_BLOCK = new RegExp(`[${UNSAFE}]`, "g");
// One line (a log line, a table's cell): newline and tab too.
const UNSAFE_IN_LINE = new RegExp(`[\\n\\t${UNSAFE}]`, "g");

/** The character as the JSON escape \uXXXX: readable text, and still valid inside a JSON string. */
const visible = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * Text made safe to print on one line of a log or a terminal: every character a terminal could
 * act on or show out of order, and newline and tab, written as a visible escape (ESC as
 * `\u001b`, a newline as `\u000a`), so that no value from outside can start a line of its own,
 * reorder one or command the terminal.
 */
export function printable(text: string): string {
  return text.replace(UNSAFE_IN_LINE, visible);
}

/** `printable` for a block of text: newline and tab kept. */
export function printableBlock(text: string): string {
  return text.replace(UNSAFE_IN_BLOCK, visible);
}
