import type { CliIo } from "./io.js";

// C0 controls but newline and tab, DEL, and C1 controls: what a terminal may take as a command
// (ESC starts a title change, a clipboard write, an erase; C1's CSI does the same in one byte;
// BEL ends them; CR overwrites the line).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL_OR_BREAK = /[\u0000-\u001f\u007f-\u009f]/g;

/** The character as the JSON escape \u00XX: readable text, and still valid inside a JSON string. */
const visible = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * `text` with every control character a terminal could act on written as a visible escape
 * (ESC as `\u001b`), newline and tab kept: for a block of text. The CLI prints none of its own,
 * so whatever it prints from elsewhere (a receiver's reply, the API's names and URIs, report
 * ids) cannot retitle the terminal, write the clipboard or overwrite what was printed.
 */
export function terminalSafe(text: string): string {
  return text.replace(CONTROL, visible);
}

/** terminalSafe for one line or one table cell: newline and tab are escaped too. */
export function inline(text: string): string {
  return text.replace(CONTROL_OR_BREAK, visible);
}

/** The io with everything written to stdout and stderr made terminal-safe. */
export function terminalSafeIo(io: CliIo): CliIo {
  return {
    ...io,
    stdout: (text) => io.stdout(terminalSafe(text)),
    stderr: (text) => io.stderr(terminalSafe(text)),
  };
}
