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

/** A receiver's reply (or any text) on one line, cut at `max` characters. */
export function oneLine(text: string, max = 300): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
