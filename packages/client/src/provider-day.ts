import { wallClockAt } from "./wall-clock.js";

const DAY_MS = 86_400_000;

/**
 * The calendar day (yyyy-mm-dd) it is at `now` in `timeZone`, moved by `offsetDays`:
 * `providerDay(new Date(), "Asia/Kolkata", -1)` is yesterday in the provider's zone, the day
 * `reconcile` pulls by default.
 * @throws TypeError naming the zone when the runtime does not know it
 */
export function providerDay(now: Date, timeZone: string, offsetDays = 0): string {
  return new Date(wallClockAt(now, timeZone) + offsetDays * DAY_MS).toISOString().slice(0, 10);
}
