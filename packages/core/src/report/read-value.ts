// One reader per FieldReading of wire's field tables. Each returns the value, null for "absent"
// (missing, null or "": composed webhooks send "" for a value the provider does not have), or an
// Unreadable saying what was expected: the caller decides what that costs (a 400, or a warning).
import { zoneFormatter } from "@reportkit/wire/internal";

/** Why a wire value could not be read; made only when one cannot. */
export class Unreadable {
  constructor(readonly message: string) {}
}

export type Read<T> = T | null | Unreadable;

const DIGITS = /^\d+$/;
const UNIX = /^\d+(?:\.\d+)?$/;
// "2", "2.", "2.0", "+2.00": a whole number however it was written.
const WHOLE = /^\+?(\d+)(?:\.0*)?$/;
// Any decimal a sender may write: "2", ".25", "-0.5", "+2.5", "2.", "1.5e-3".
const ANY_DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d{1,4}))?$/i;
const MAX_EXPONENT = 400; // past this, no amount of credits
const CREDIT_PLACES = 4; // the provider's "2.0000"; more are kept, fewer padded
const MILLISECONDS_FROM = 1e11; // as seconds, after the year 5000
const MAX_TIME = 8.64e15; // past it, `new Date(t)` is an Invalid Date

function blank(value: unknown): value is "" | null | undefined {
  return value === undefined || value === null || value === "";
}

/** The value as an error message may quote it: short, and never a whole body. */
export function quote(value: unknown): string {
  if (typeof value === "string") {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return describe(value);
}

export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** A JSON number as text; a whole number past 2^53, rounded by JSON.parse, is not handed on. */
function numberText(value: number): string | Unreadable {
  if (Number.isSafeInteger(value) || (Number.isFinite(value) && !Number.isInteger(value))) {
    return String(value);
  }
  return new Unreadable(
    Number.isFinite(value)
      ? `${value} is too large to be exact as a JSON number (send it as a string)`
      : `expected text or a number, got ${value}`,
  );
}

export function readText(value: unknown): Read<string> {
  if (typeof value === "string") return value === "" ? null : value;
  if (blank(value)) return null;
  if (typeof value === "number") return numberText(value);
  return new Unreadable(`expected text or a number, got ${describe(value)}`);
}

/** The longest identity kept: the provider's ids are about 40 characters. */
const MAX_IDENTITY_LENGTH = 255;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Text that identifies a report, trimmed, and that every store can keep as a key: well-formed (a
 * lone surrogate stored as U+FFFD makes two ids one), no control character (Postgres refuses a
 * NUL; a newline forges log lines), at most 255 characters (index rows).
 */
export function readIdentity(value: unknown): Read<string> {
  const text = readText(value);
  if (typeof text !== "string") return text;
  const trimmed = text.trim();
  if (trimmed === "") return null;
  if (trimmed.length > MAX_IDENTITY_LENGTH) {
    return new Unreadable(
      `it is ${trimmed.length} characters long, more than ${MAX_IDENTITY_LENGTH}`,
    );
  }
  if (CONTROL.test(trimmed)) return new Unreadable("it holds a control character");
  if (!isWellFormed(trimmed)) return new Unreadable("it holds a lone UTF-16 surrogate");
  return trimmed;
}

/** String#isWellFormed: ES2024, in every runtime reportkit supports, not yet in its TS lib. */
function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

// What people write inside phone numbers: "+91 98765-43210", "(0) 98765 43210".
const PHONE_PUNCTUATION = /[\s\-().+]/g;

/** A phone number as digits; a string that is no number ("anonymous") kept as the provider said. */
export function readPhone(value: unknown): Read<string> {
  if (typeof value === "string") {
    const s = value.trim();
    if (s === "") return null;
    const digits = s.replace(PHONE_PUNCTUATION, "");
    return DIGITS.test(digits) ? digits : s;
  }
  if (blank(value)) return null;
  if (typeof value === "number") {
    if (Number.isSafeInteger(value) && value >= 0) return String(value);
    return new Unreadable(
      Number.isInteger(value) && value > 0
        ? `${value} is too large to be exact as a JSON number (send it as a string)`
        : `expected a phone number, got ${value}`,
    );
  }
  return new Unreadable(`expected a phone number, got ${describe(value)}`);
}

/** A whole number, sent as a number or as digits ("2", and "2.0" too). */
export function readCount(value: unknown): Read<number> {
  if (typeof value === "number") {
    if (Number.isSafeInteger(value) && value >= 0) return value;
    return new Unreadable(`expected a whole number, got ${value}`);
  }
  if (typeof value === "string") {
    const s = value.trim();
    if (s === "") return null;
    const n = Number(WHOLE.exec(s)?.[1] ?? Number.NaN);
    return Number.isSafeInteger(n)
      ? n
      : new Unreadable(`expected a whole number, got ${quote(value)}`);
  }
  if (blank(value)) return null;
  return new Unreadable(`expected a whole number, got ${describe(value)}`);
}

/** An exact decimal as plain digits with at least the provider's 4 places: ".25" is "0.2500". */
export function readDecimal(value: unknown): Read<string> {
  if (typeof value === "string") {
    const s = value.trim();
    if (s === "") return null;
    return plainDecimal(s) ?? new Unreadable(`expected a decimal number, got ${quote(value)}`);
  }
  if (typeof value === "number") {
    // String() gives the shortest digits that are this number: what the sender wrote.
    const text = Number.isFinite(value) ? plainDecimal(String(value)) : undefined;
    return text ?? new Unreadable(`expected a decimal number, got ${value}`);
  }
  if (blank(value)) return null;
  return new Unreadable(`expected a decimal number, got ${describe(value)}`);
}

/** A decimal in any notation, as plain digits with at least 4 places; undefined if none. */
function plainDecimal(text: string): string | undefined {
  const m = ANY_DECIMAL.exec(text);
  if (m === null) return undefined;
  const [, sign, whole = "", fraction = "", exponent] = m;
  if (whole === "" && fraction === "") return undefined;
  let digits = whole + fraction;
  let point = whole.length;
  if (exponent !== undefined) {
    const shift = Number(exponent);
    if (Math.abs(shift) > MAX_EXPONENT) return undefined;
    point += shift;
    digits = point < 0 ? digits.padStart(digits.length - point, "0") : digits.padEnd(point, "0");
    point = Math.max(point, 0);
  }
  const integer = digits.slice(0, point).replace(/^0+/, "") || "0";
  const places = digits.slice(point);
  const zero = /^0*$/.test(integer + places);
  return `${sign === "-" && !zero ? "-" : ""}${integer}.${places.padEnd(CREDIT_PLACES, "0")}`;
}

/** Seconds, or milliseconds recognised by their size, to an instant (never an Invalid Date). */
export function unixInstant(seconds: number, value: unknown): Date | Unreadable {
  const ms = Math.round(seconds >= MILLISECONDS_FROM ? seconds : seconds * 1000);
  if (ms <= MAX_TIME) return new Date(ms);
  return new Unreadable(
    `${quote(value)} is past any date a unix timestamp in seconds or milliseconds can give`,
  );
}

/** An ISO 8601 time with its zone ("2023-07-08T12:52:54.000000Z"); anything else is unreadable. */
export function readTimestamp(value: unknown): Read<Date> {
  if (blank(value)) return null;
  if (typeof value === "string" && ISO_WITH_ZONE.test(value.trim())) {
    // Date.parse takes milliseconds at most: "…54.000000Z" is read as "…54.000Z".
    const t = Date.parse(value.trim().replace(/(\.\d{3})\d+/, "$1"));
    if (!Number.isNaN(t)) return new Date(t);
  }
  return new Unreadable(
    `expected a date and time with its zone like "2023-07-08T12:52:54.000000Z", got ${quote(value)}`,
  );
}
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** Unix seconds (milliseconds recognised by their size); 0, as PHP sends it, is "no time". */
export function readUnixTime(value: unknown): Read<Date> {
  let seconds: number;
  if (typeof value === "number") {
    seconds = value;
  } else if (typeof value === "string") {
    const s = value.trim();
    if (s === "") return null;
    seconds = UNIX.test(s) ? Number(s) : Number.NaN;
  } else if (blank(value)) {
    return null;
  } else {
    return new Unreadable(`expected a unix timestamp in seconds, got ${describe(value)}`);
  }
  if (!Number.isFinite(seconds) || seconds < 0) {
    return new Unreadable(`expected a unix timestamp in seconds, got ${quote(value)}`);
  }
  return seconds === 0 ? null : unixInstant(seconds, value);
}

// ---- Wall-clock times, in a zone ---------------------------------------------------------

// Wall-clock strings ("2021-04-09 16:27:51") are read in the configured IANA zone by Intl, the
// only runtime-neutral zone database; its formatToParts costs microseconds, so a zone's offset is
// kept per hour of UTC when it holds the whole hour (a transition's is worked out each time).

// The provider's own form, "2021-04-09 16:27:51", read by its characters: a match and its seven
// strings were a third of a DLR's allocations (a capture-less test: 18 ns, a char loop's 36).
const PLAIN_WALL_CLOCK = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d$/;
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

// Calendar arithmetic instead of Date.UTC and its getters to check the date: those cost about
// 380 ns a time (three times a DLR), this about 20 (measured, micro.mjs).
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(y: number, mo: number): number {
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return mo === 2 && leap ? 29 : (MONTH_DAYS[mo - 1] as number);
}

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, mo: number, d: number): number {
  const year = mo <= 2 ? y - 1 : y;
  const era = Math.floor(year / 400);
  const yoe = year - era * 400;
  const doy = Math.floor((153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5) + d - 1;
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
}

/** The number the digits of text[from, to) write. */
function digits(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + text.charCodeAt(i) - 48;
  return n;
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
        let y: number;
        let mo: number;
        let d: number;
        let h: number;
        let mi: number;
        let s = 0;
        let ms = 0;
        if (PLAIN_WALL_CLOCK.test(text)) {
          y = digits(text, 0, 4);
          mo = digits(text, 5, 7);
          d = digits(text, 8, 10);
          h = digits(text, 11, 13);
          mi = digits(text, 14, 16);
          s = digits(text, 17, 19);
        } else {
          const m = WALL_CLOCK.exec(text);
          if (m === null) {
            if (text === "" || ZERO_DATE.test(text)) return null;
            const t = HAS_ZONE.test(text) ? Date.parse(text) : Number.NaN;
            return Number.isNaN(t) ? undefined : new Date(t);
          }
          y = Number(m[1]);
          mo = Number(m[2]);
          d = Number(m[3]);
          h = Number(m[4]);
          mi = Number(m[5]);
          if (m[6] !== undefined) s = Number(m[6]);
          if (m[7] !== undefined) ms = Math.floor(Number(`0.${m[7]}`) * 1000);
        }
        if (y === 0 && mo === 0 && d === 0) return null;
        // A date or time that does not exist (2021-02-30, 24:00, 12:60) is unreadable.
        if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) {
          return undefined;
        }
        const local = ((daysFromCivil(y, mo, d) * 24 + h) * 60 + mi) * 60_000 + s * 1000 + ms;
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
