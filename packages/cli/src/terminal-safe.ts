import type { CliIo } from "./io.js";

// What a terminal may take as a command, or shows other than as written: C0 controls (ESC
// starts a title change, a clipboard write, an erase; BEL ends them; CR overwrites the line),
// DEL, C1 controls (CSI does the same as ESC [ in one byte), the Unicode line and paragraph
// separators, and the bidirectional controls (U+061C, U+200E/F, U+202A-E, U+2066-9), which
// reorder how the rest of a line is shown: a report id could make "m-1  failed" read otherwise.
const UNSAFE =
  "\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069";
const UNSAFE_IN_BLOCK = new RegExp(`[${UNSAFE}]`, "g");
// One line, or a table's cell: newline and tab too.
const UNSAFE_IN_LINE = new RegExp(`[\\n\\t${UNSAFE}]`, "g");

/** The character as the JSON escape \uXXXX: readable text, and still valid inside a JSON string. */
const visible = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * `text` with every character a terminal could act on, or show out of order, written as a
 * visible escape (ESC as `\u001b`, RIGHT-TO-LEFT OVERRIDE as `\u202e`), newline and tab kept:
 * for a block of text. The CLI prints none of its own, so whatever it prints from elsewhere (a
 * receiver's reply, the API's names and URIs, report ids) cannot retitle the terminal, write the
 * clipboard, overwrite or reorder what was printed.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE_IN_BLOCK, visible);
}

/** terminalSafe for one line or one table cell: newline and tab are escaped too. */
export function inline(text: string): string {
  return text.replace(UNSAFE_IN_LINE, visible);
}

/** The io with everything written to stdout and stderr made terminal-safe. */
export function terminalSafeIo(io: CliIo): CliIo {
  return {
    ...io,
    stdout: (text) => io.stdout(terminalSafe(text)),
    stderr: (text) => io.stderr(terminalSafe(text)),
  };
}
