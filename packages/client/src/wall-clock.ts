import { utcMsOf, zoneFormatter } from "@reportkit/wire/internal";

// The provider's wall-clock times ("2024-06-24 09:51:03", no zone: its zone, Asia/Kolkata)
// compared as numbers: each read as if it were UTC ("wall ms"). Two wall-clock times of one
// zone are that many ms apart (Asia/Kolkata has no daylight saving), and an instant is put on
// the same scale by its wall-clock time in the zone. So the client needs no zone arithmetic.

/** "yyyy-mm-dd HH:MM:SS", as the pull APIs serve times. */
export const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** A wall-clock time read as if UTC, in ms; undefined when it is not one (2019-02-30 is not). */
export function wallClockMs(text: string): number | undefined {
  const m = WALL_CLOCK.exec(text);
  return m === null ? undefined : utcMsOf(m.slice(1));
}

/**
 * The wall-clock time of an instant in `timeZone`, read as if UTC, in ms (whole seconds).
 * @throws TypeError naming the zone when the runtime does not know it
 */
export function wallClockAt(instant: Date, timeZone: string): number {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = zoneFormatter(timeZone).formatToParts(instant);
  } catch {
    throw new TypeError(
      `reportkit client: timeZone "${timeZone}" is not an IANA time zone this runtime knows; use e.g. "Asia/Kolkata".`,
    );
  }
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return Date.UTC(
    part("year"),
    part("month") - 1,
    part("day"),
    part("hour"),
    part("minute"),
    part("second"),
  );
}
