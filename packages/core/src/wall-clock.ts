// Wall-clock strings ("2021-04-09 16:27:51") carry no zone; they are read in the receiver's
// configured IANA zone. Intl is the only runtime-neutral zone database, and formatToParts is
// slow, so offsets are cached per quarter hour (every real-world transition falls on one).

const WALL_CLOCK =
  /^(\d{4})-(\d{1,2})-(\d{1,2})[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;
const HAS_ZONE = /(?:Z|[+-]\d{2}:?\d{2})$/i;
const ZERO_DATE = /^0{4}-0{1,2}-0{1,2}/;
const QUARTER_HOUR = 900_000;
const MAX_CACHED_OFFSETS = 2048;

/** Reads a wall-clock string: a Date, null for an empty/zero date, undefined if unreadable. */
export type WallClockReader = (value: string) => Date | null | undefined;

const readers = new Map<string, WallClockReader>();

/**
 * Returns the reader for an IANA zone, building it once.
 * @throws RangeError naming the zone when the runtime does not know it.
 */
export function wallClockReader(timeZone: string): WallClockReader {
  let reader = readers.get(timeZone);
  if (reader === undefined) {
    reader = buildReader(timeZone);
    readers.set(timeZone, reader);
  }
  return reader;
}

function buildReader(timeZone: string): WallClockReader {
  const offsetAt = zoneOffset(timeZone);
  return (value) => {
    const text = value.trim();
    if (text === "" || ZERO_DATE.test(text)) return null;
    const m = WALL_CLOCK.exec(text);
    if (m === null) {
      if (!HAS_ZONE.test(text)) return undefined;
      const t = Date.parse(text);
      return Number.isNaN(t) ? undefined : new Date(t);
    }
    const [, y, mo, d, h, mi, s, frac] = m as unknown as string[];
    const month = Number(mo) - 1;
    const day = Number(d);
    const ms = frac === undefined ? 0 : Math.floor(Number(`0.${frac}`) * 1000);
    const wall = Date.UTC(Number(y), month, day, Number(h), Number(mi), Number(s ?? 0), ms);
    const check = new Date(wall);
    if (check.getUTCMonth() !== month || check.getUTCDate() !== day || Number(h) > 23) {
      return undefined;
    }
    if (offsetAt === null) return check;
    let utc = wall - offsetAt(wall);
    const second = offsetAt(utc);
    if (wall - second !== utc) utc = wall - second;
    return new Date(utc);
  };
}

/** null for UTC; otherwise a cached function from a UTC instant to the zone's offset in ms. */
function zoneOffset(timeZone: string): ((utc: number) => number) | null {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
  } catch {
    throw new RangeError(
      `reportkit: timeZone "${timeZone}" is not an IANA time zone this runtime knows; use a name such as "UTC" or "Asia/Kolkata".`,
    );
  }
  const resolved = format.resolvedOptions().timeZone;
  if (resolved === "UTC" || resolved === "Etc/UTC" || resolved === "Etc/GMT") return null;
  const cache = new Map<number, number>();
  return (utc) => {
    const bucket = Math.floor(utc / QUARTER_HOUR);
    let offset = cache.get(bucket);
    if (offset === undefined) {
      const at = bucket * QUARTER_HOUR;
      const p: Record<string, number> = {};
      for (const part of format.formatToParts(at)) p[part.type] = Number(part.value);
      offset = Date.UTC(p.year ?? 0, (p.month ?? 1) - 1, p.day, p.hour, p.minute, p.second) - at;
      if (cache.size >= MAX_CACHED_OFFSETS) cache.clear();
      cache.set(bucket, offset);
    }
    return offset;
  };
}
