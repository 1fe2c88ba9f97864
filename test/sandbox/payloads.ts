// The two shapes the sandbox pushes, for tests that run in both, and how to read their times.
import type { PayloadStyle } from "@reportkit/sandbox";

/**
 * The instant (ms) a report's time stands for: its unix field when the report has one, else
 * its wall-clock twin read in Asia/Kolkata (+05:30 all year), else null.
 */
export function instantOf(unix: string | undefined, wallClock: string | undefined): number | null {
  if (unix !== undefined) return Number(unix) * 1000;
  if (wallClock !== undefined) return Date.parse(`${wallClock.replace(" ", "T")}+05:30`);
  return null;
}

/**
 * The pushed body as data: strict JSON in "complete" payloads; in "documented" ones, first
 * checked to be written like the documentation's samples (one field a line, a trailing comma
 * before the closing brace), then read without that comma.
 */
export function pushedBody(text: string, payloads: PayloadStyle): Record<string, unknown> {
  if (payloads === "complete") return JSON.parse(text) as Record<string, unknown>;
  if (!/^\{\n( {4}"[a-z_]+": .+,\n)+\}$/.test(text)) {
    throw new Error(`not written like the documentation's samples:\n${text}`);
  }
  return JSON.parse(text.replace(/,\n\}$/, "\n}")) as Record<string, unknown>;
}
