import { zoneFormatter } from "@reportkit/wire/internal";

// Wall-clock strings ("2021-04-09 16:27:51") are read in the configured IANA zone by Intl, the
// only runtime-neutral zone database; its formatToParts costs microseconds, so a zone's offset is
// kept per hour of UTC when it holds the whole hour (a transition's is worked out each time).

const WALL_CLOCK =
  /^(\d{4})-(\d{1,2})-(\d{1,2})[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;
const HAS_ZONE = /(?:Z|[+-]\d{2}:?\d{2})$/i;
const ZERO_DATE = /^0{4}-0{1,2}-0{1,2}/;
const HOUR = 3_600_000;
const MAX_CACHED_HOURS = 4096;

/** Reads a wall-clock string: a Date, null for an empty/zero date, undefined if unreadable. */
export interface WallClockReader {
  (value: string): Date | null | undefined;
  /** The IANA zone it reads in, as configured. */
  readonly timeZone: string;
}

/** Whether a wall-clock string names its own zone ("…Z", "…+05:30"). */
export function carriesZone(value: string): boolean {
  return HAS_ZONE.test(value.trim());
}

const readers = new Map<string, WallClockReader>();

/** The reader for an IANA zone, built once. @throws RangeError naming a zone the runtime lacks */
export function wallClockReader(timeZone: string): WallClockReader {
  let reader = readers.get(timeZone);
  if (reader === undefined) {
    const offsetAt = zoneOffsets(timeZone);
    reader = Object.assign(
      (value: string): Date | null | undefined => {
        const text = value.trim();
        const m = WALL_CLOCK.exec(text);
        if (m === null) {
          if (text === "" || ZERO_DATE.test(text)) return null;
          const t = HAS_ZONE.test(text) ? Date.parse(text) : Number.NaN;
          return Number.isNaN(t) ? undefined : new Date(t);
        }
        const [y, mo, d, h, mi, s = 0] = m.slice(1, 7).map(Number) as number[];
        if (y === 0 && mo === 0 && d === 0) return null;
        const ms = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
        const wall = Date.UTC(y as number, (mo as number) - 1, d, h, mi, s, ms);
        // Date.UTC rolls 2021-02-30 over into March: a date that does not exist is unreadable.
        const date = new Date(wall);
        if (date.getUTCDate() !== d || date.getUTCHours() !== h || date.getUTCMinutes() !== mi) {
          return undefined;
        }
        if ((y as number) < 100) date.setUTCFullYear(y as number); // Date.UTC reads 0–99 as 19xx
        const local = date.getTime();
        // The offset at the wall-clock time read as UTC, then at the instant that gives: the
        // zone's offset there, also across a transition (a gap or an overlap).
        return new Date(local - offsetAt(local - offsetAt(local)));
      },
      { timeZone },
    );
    readers.set(timeZone, reader);
  }
  return reader;
}

/** The zone's offset at an instant, in ms; kept per hour of UTC over which it holds. */
function zoneOffsets(timeZone: string): (utc: number) => number {
  let format: Intl.DateTimeFormat;
  try {
    format = zoneFormatter(timeZone);
  } catch {
    throw new RangeError(
      `reportkit: timeZone "${timeZone}" is not an IANA time zone this runtime knows; use a name such as "UTC" or "Asia/Kolkata".`,
    );
  }
  const resolved = format.resolvedOptions().timeZone;
  if (resolved === "UTC" || resolved === "Etc/UTC" || resolved === "Etc/GMT") return () => 0;
  // Seconds precision, as zones are defined.
  const exact = (utc: number): number => {
    const at = Math.floor(utc / 1000) * 1000;
    const p: Record<string, number> = {};
    for (const part of format.formatToParts(at)) p[part.type] = Number(part.value);
    return Date.UTC(p.year ?? 0, (p.month ?? 1) - 1, p.day, p.hour, p.minute, p.second) - at;
  };
  const hours = new Map<number, number | null>();
  return (utc) => {
    const hour = Math.floor(utc / HOUR);
    let offset = hours.get(hour);
    if (offset === undefined) {
      const start = exact(hour * HOUR);
      offset = start === exact(hour * HOUR + HOUR - 1000) ? start : null;
      if (hours.size >= MAX_CACHED_HOURS) hours.clear();
      hours.set(hour, offset);
    }
    return offset ?? exact(utc);
  };
}
