import { zoneFormatter } from "@reportkit/wire/internal";

// Wall-clock strings ("2021-04-09 16:27:51") carry no zone; they are read in the receiver's
// configured IANA zone. Intl is the only runtime-neutral zone database (wire's zoneFormatter),
// and formatToParts is slow, so offsets are cached per quarter hour (see zoneOffsets).

const WALL_CLOCK =
  /^(\d{4})-(\d{1,2})-(\d{1,2})[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;
const HAS_ZONE = /(?:Z|[+-]\d{2}:?\d{2})$/i;
const ZERO_DATE = /^0{4}-0{1,2}-0{1,2}/;
const QUARTER_HOUR = 900_000;
const MAX_CACHED_OFFSETS = 2048;

/** Reads a wall-clock string: a Date, null for an empty/zero date, undefined if unreadable. */
export interface WallClockReader {
  (value: string): Date | null | undefined;
  /** The IANA zone it reads in, as configured. */
  readonly timeZone: string;
}

/** Whether a wall-clock string names its own zone ("…Z", "…+05:30"): the configured one is moot. */
export function carriesZone(value: string): boolean {
  return HAS_ZONE.test(value.trim());
}

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
  const toUtc = wallToUtc(timeZone);
  const read = (value: string): Date | null | undefined => {
    let wall = fixedFormat(value);
    if (wall === undefined) {
      const text = value.trim();
      if (text === "" || ZERO_DATE.test(text)) return null;
      if (WALL_CLOCK.test(text)) wall = anyFormat(text);
      else if (HAS_ZONE.test(text)) {
        const t = Date.parse(text);
        return Number.isNaN(t) ? undefined : new Date(t);
      }
      if (wall === undefined) return undefined;
    }
    if (wall === null) return null;
    return new Date(toUtc === null ? wall : toUtc(wall));
  };
  return Object.assign(read, { timeZone });
}

/**
 * The provider's own "yyyy-mm-dd hh:mm:ss" read without a regex: this runs up to three
 * times per report. undefined: not this exact form (the general path decides).
 */
function fixedFormat(s: string): number | null | undefined {
  if (
    s.length !== 19 ||
    s.charCodeAt(4) !== 45 ||
    s.charCodeAt(7) !== 45 ||
    (s.charCodeAt(10) !== 32 && s.charCodeAt(10) !== 84) ||
    s.charCodeAt(13) !== 58 ||
    s.charCodeAt(16) !== 58
  ) {
    return undefined;
  }
  const year = fourDigits(s, 0);
  const month = twoDigits(s, 5);
  const day = twoDigits(s, 8);
  if (year === 0 && month === 0 && day === 0) return null;
  return utcOf(year, month, day, twoDigits(s, 11), twoDigits(s, 14), twoDigits(s, 17), 0);
}

// The three times of one report, and the reports of one day, share a date: its day number
// is kept rather than worked out again.
let lastDate = -1;
let lastDays = 0;

/** Days since 1970-01-01 of a valid date, else undefined. */
function dayNumber(year: number, month: number, day: number): number | undefined {
  const key = year * 10_000 + month * 100 + day;
  if (key === lastDate) return lastDays;
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > (DAYS[month - 1] as number)) {
    return undefined;
  }
  if (month === 2 && day === 29 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0))) {
    return undefined;
  }
  lastDays = daysFromCivil(year, month, day);
  lastDate = key;
  return lastDays;
}

function anyFormat(text: string): number | undefined {
  const m = WALL_CLOCK.exec(text) as unknown as string[];
  const frac = m[7];
  const ms = frac === undefined ? 0 : Math.floor(Number(`0.${frac}`) * 1000);
  const n = (i: number) => Number(m[i] ?? 0);
  return utcOf(n(1), n(2), n(3), n(4), n(5), n(6), ms);
}

// Two small readers rather than one with a count, so that both inline where they are used.
/** Two digits as a number; -1 when a character is not a digit, which every range check rejects. */
function twoDigits(s: string, from: number): number {
  const a = s.charCodeAt(from) - 48;
  const b = s.charCodeAt(from + 1) - 48;
  return a >>> 0 > 9 || b >>> 0 > 9 ? -1 : a * 10 + b;
}

/** Four digits as a number; -1 when a character is not a digit. */
function fourDigits(s: string, from: number): number {
  const high = twoDigits(s, from);
  const low = twoDigits(s, from + 2);
  return high < 0 || low < 0 ? -1 : high * 100 + low;
}

const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function utcOf(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number) {
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59) return undefined;
  const days = dayNumber(y, mo, d);
  if (days === undefined) return undefined;
  return days * 86_400_000 + h * 3_600_000 + mi * 60_000 + s * 1000 + ms;
}

/** Days since 1970-01-01 of a proleptic Gregorian date: Date.UTC without its float math. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/**
 * null for UTC; otherwise a function from a wall-clock time in the zone (as ms since the epoch
 * read as if UTC) to the instant: the offset at the wall-clock time read as UTC, then the
 * offset at the instant that gives, which is the zone's offset there, also across a
 * transition (a gap or an overlap). Within one quarter hour of wall-clock time that answer is
 * the same when both offsets hold over their quarter hours of UTC and are whole quarter hours,
 * so it is kept for the last quarter hour read: the times of one report, and of a burst of
 * reports, share it.
 */
function wallToUtc(timeZone: string): ((wall: number) => number) | null {
  const offsets = zoneOffsets(timeZone);
  if (offsets === null) return null;
  let lastBucket = Number.NaN;
  let lastOffset = 0;
  return (wall) => {
    const bucket = Math.floor(wall / QUARTER_HOUR);
    if (bucket === lastBucket) return wall - lastOffset;
    const first = offsets.steady(wall);
    const offset = first === undefined ? undefined : offsets.steady(wall - first);
    if (first === undefined || offset === undefined || first % QUARTER_HOUR !== 0) {
      return wall - offsets.exact(wall - offsets.exact(wall));
    }
    lastBucket = bucket;
    lastOffset = offset;
    return wall - offset;
  };
}

interface ZoneOffsets {
  /** The offset at an instant, in ms, from Intl. */
  exact(utc: number): number;
  /** The offset over the whole quarter hour of UTC holding `utc`; undefined if it changes in it. */
  steady(utc: number): number | undefined;
}

/** null for UTC; otherwise the zone's offsets, cached per quarter hour of UTC. */
function zoneOffsets(timeZone: string): ZoneOffsets | null {
  let format: Intl.DateTimeFormat;
  try {
    format = zoneFormatter(timeZone);
  } catch {
    throw new RangeError(
      `reportkit: timeZone "${timeZone}" is not an IANA time zone this runtime knows; use a name such as "UTC" or "Asia/Kolkata".`,
    );
  }
  const resolved = format.resolvedOptions().timeZone;
  if (resolved === "UTC" || resolved === "Etc/UTC" || resolved === "Etc/GMT") return null;
  // Seconds precision, as zones are defined.
  const exact = (utc: number): number => {
    const at = Math.floor(utc / 1000) * 1000;
    const p: Record<string, number> = {};
    for (const part of format.formatToParts(at)) p[part.type] = Number(part.value);
    return Date.UTC(p.year ?? 0, (p.month ?? 1) - 1, p.day, p.hour, p.minute, p.second) - at;
  };
  // Every transition of the last 70 years falls on a quarter hour; an older one (local mean
  // time giving way to a zone's standard time) may fall inside one, which is then not steady.
  const cache = new Map<number, number | null>();
  const steady = (utc: number): number | undefined => {
    const bucket = Math.floor(utc / QUARTER_HOUR);
    let offset = cache.get(bucket);
    if (offset === undefined) {
      const at = bucket * QUARTER_HOUR;
      const start = exact(at);
      offset = start === exact(at + QUARTER_HOUR - 1000) ? start : null;
      if (cache.size >= MAX_CACHED_OFFSETS) cache.clear();
      cache.set(bucket, offset);
    }
    return offset ?? undefined;
  };
  return { exact, steady };
}
