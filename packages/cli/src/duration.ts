import { CliError } from "./io.js";

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * "500ms", "5s", "2m", "1h" in ms.
 * @throws CliError saying which forms are accepted
 */
export function parseDuration(text: string, option = "duration"): number {
  const match = DURATION.exec(text.trim());
  if (match === null) {
    throw new CliError(
      `${option} must be a number with a unit (ms, s, m or h), e.g. 500ms, 5s or 30m; got "${text}".`,
    );
  }
  const ms = Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  if (ms > 2 ** 31 - 1) throw new CliError(`${option} must be at most 24 days; got "${text}".`);
  return Math.round(ms);
}

/** 1800000 → "30m", 2000 → "2s", 250 → "250ms". */
export function formatDuration(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
