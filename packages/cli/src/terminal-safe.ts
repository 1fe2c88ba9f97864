// The CLI's io made safe for a terminal: the rule is wire's (`printable`, one definition with the
// receiver's log lines), whatever the CLI prints from elsewhere.
import { printable, printableBlock } from "@reportkit/wire/internal";
import type { CliIo } from "./io.js";

/**
 * `text` with every character a terminal could act on, or show out of order, written as a
 * visible escape (ESC as `\u001b`, RIGHT-TO-LEFT OVERRIDE as `\u202e`), newline and tab kept:
 * for a block of text. The CLI prints none of its own, so whatever it prints from elsewhere (a
 * receiver's reply, the API's names and URIs, report ids) cannot retitle the terminal, write the
 * clipboard, overwrite or reorder what was printed.
 */
export const terminalSafe = printableBlock;

/** terminalSafe for one line or one table cell: newline and tab are escaped too. */
export const inline = printable;

/** The io with everything written to stdout and stderr made terminal-safe. */
export function terminalSafeIo(io: CliIo): CliIo {
  return {
    ...io,
    stdout: (text) => io.stdout(terminalSafe(text)),
    stderr: (text) => io.stderr(terminalSafe(text)),
  };
}
