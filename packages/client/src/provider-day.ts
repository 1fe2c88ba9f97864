import { zoneFormatter } from "@reportkit/wire/internal";

/**
 * The calendar day (yyyy-mm-dd) it is at `now` in `timeZone`, moved by `offsetDays`:
 * `providerDay(new Date(), "Asia/Kolkata", -1)` is yesterday in the provider's zone, the day
 * `reconcile` pulls by default.
 * @throws TypeError naming the zone when the runtime does not know it
 */
export function providerDay(now: Date, timeZone: string, offsetDays = 0): string {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = zoneFormatter(timeZone).formatToParts(now);
  } catch {
    throw new TypeError(
      `reportkit client: timeZone "${timeZone}" is not an IANA time zone this runtime knows; use e.g. "Asia/Kolkata".`,
    );
  }
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const day = new Date(Date.UTC(part("year"), part("month") - 1, part("day") + offsetDays));
  return day.toISOString().slice(0, 10);
}
