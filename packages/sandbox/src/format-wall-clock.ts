import { wallClockText, zoneFormatter } from "@reportkit/wire/internal";

/**
 * "yyyy-mm-dd HH:MM:SS" (24-hour) for an instant, as wall-clock time in an IANA zone: the
 * form the provider's *_time, start_at and end_at fields use.
 * @throws RangeError naming the zone when the runtime does not know it
 */
export function formatWallClock(date: Date, timeZone: string): string {
  formatter(timeZone);
  return wallClockText(date, timeZone);
}

/** Throws a RangeError naming the zone when the runtime does not know it. */
export function checkTimeZone(timeZone: string): void {
  formatter(timeZone);
}

function formatter(timeZone: string): Intl.DateTimeFormat {
  try {
    return zoneFormatter(timeZone);
  } catch {
    throw new RangeError(
      `reportkit sandbox: timeZone "${timeZone}" is not an IANA time zone this runtime knows; use e.g. "Asia/Kolkata" or "UTC".`,
    );
  }
}

/** Whole seconds since the epoch. */
export function unixSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
