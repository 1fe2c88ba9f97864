// The CLI's writers of what it prints from elsewhere (a journal key, a pulled record's id, a
// receiver's reply, an API's names): tables, records and lines. Each value passes `inline`, so
// none can end its line, forge another, or drive the terminal; a command that writes through
// these cannot forget it.
import { inline } from "./terminal-safe.js";

/**
 * A plain-text table: a header row, then rows, columns padded to their widest cell. A cell's
 * line breaks, tabs and control characters are escaped: a value cannot forge a row.
 */
export function formatTable(
  headers: readonly string[],
  cells: readonly (readonly string[])[],
): string {
  const rows = cells.map((row) => row.map(inline));
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)].join("\n");
}

/** Key/value lines, keys padded: for one record. Values are escaped as table cells are. */
export function formatRecord(entries: readonly (readonly [string, string])[]): string {
  const width = Math.max(...entries.map(([k]) => k.length));
  return entries.map(([k, v]) => `${k.padEnd(width)}  ${inline(v)}`).join("\n");
}

/** A receiver's reply (or any text) on one line, cut at `max` characters. Redact it first. */
export function oneLine(text: string, max = 300): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** A value of a line shown on one line and cut at `max` characters: see `lineWriter`. */
export interface Cut {
  readonly cut: string;
  readonly max: number;
}

/** `text` as a value of a line: its whitespace folded, cut at `max` characters (a reply). */
export function cut(text: string, max = 300): Cut {
  return { cut: text, max };
}

/** Writes one line (with its newline) from a template: see `lineWriter`. */
export type LineWriter = (
  strings: TemplateStringsArray,
  ...values: readonly (string | number | Cut)[]
) => string;

/**
 * The CLI's one writer of a line that shows values from elsewhere, as a template tag: the
 * template's own text as written, each value redacted by `hide` (a secret the command sends),
 * then, when given as `cut(text, max)`, folded and cut, then escaped as `inline` does. Redacted
 * before it is cut, so that a cut never leaves the start of a secret.
 *
 * @example
 * const line = lineWriter(redactor(secret));
 * io.stdout(line`${entry.key}  failed: ${cut(reason, 240)}`);
 * // "delivery:m-1\u000a…  failed: HTTP 401: … Bearer [token] …\n"
 */
export function lineWriter(hide: (text: string) => string = (text) => text): LineWriter {
  return (strings, ...values) => {
    let text = strings[0] ?? "";
    values.forEach((value, i) => {
      const shown =
        typeof value === "object" ? oneLine(hide(value.cut), value.max) : hide(String(value));
      text += inline(shown) + (strings[i + 1] ?? "");
    });
    return `${text}\n`;
  };
}

/** `lineWriter` for a command that sends no secret. */
export const line: LineWriter = lineWriter();
