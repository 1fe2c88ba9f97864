// Normalizes wire values that passed the zod type check. Each function returns the value,
// null for "absent" (missing, null or an empty string: composed webhooks send "" for a
// value the provider does not have), or throws a FieldError naming what was expected.

/** A wire field whose value cannot be normalized. */
export class FieldError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

const DIGITS = /^\d+$/;
const DECIMAL = /^-?\d+(?:\.\d+)?$/;
const UNIX = /^\d+(?:\.\d+)?$/;

type Wire = string | number | null | undefined;

function blank(value: Wire): value is "" | null | undefined {
  return value === undefined || value === null || value === "";
}

/**
 * A JSON number as text. Whole numbers past 2^53 were already rounded by JSON.parse: an id
 * made of other digits than the sender's is refused rather than handed on.
 */
function numberText(value: number, field: string): string {
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new FieldError(
      field,
      `${value} is too large to be exact as a JSON number; send it as a string`,
    );
  }
  return String(value);
}

/** Required text (id, status); a number becomes its decimal string. */
export function requiredText(value: string | number, field: string): string {
  const s = typeof value === "string" ? value.trim() : numberText(value, field);
  if (s === "") throw new FieldError(field, "expected a non-empty value");
  return s;
}

export function optionalText(value: Wire, field: string): string | null {
  return blank(value) ? null : typeof value === "string" ? value : numberText(value, field);
}

// What people write inside phone numbers: "+91 98765-43210", "(0) 98765 43210".
const PHONE_PUNCTUATION = /[\s\-().+]/g;

/**
 * A phone number as a digit string: a JSON number becomes its digits (exact to 15), a string
 * loses its "+", spaces, dashes, dots and parentheses. A string that is no number at all (a
 * caller ID such as "anonymous") is kept as sent, since refusing it would lose the report.
 */
export function phone(value: string | number, field: string): string {
  if (typeof value === "number") {
    if (Number.isSafeInteger(value) && value >= 0) return String(value);
    throw new FieldError(field, `expected a phone number, got ${value}`);
  }
  const s = value.trim();
  if (DIGITS.test(s)) return s;
  const digits = s.replace(PHONE_PUNCTUATION, "");
  return DIGITS.test(digits) ? digits : s;
}

export function optionalPhone(value: Wire, field: string): string | null {
  return blank(value) ? null : phone(value, field);
}

/** A whole number, sent as a number or a string of digits. */
export function optionalCount(value: Wire, field: string): number | null {
  if (blank(value)) return null;
  if (typeof value === "number") {
    if (Number.isSafeInteger(value) && value >= 0) return value;
    throw new FieldError(field, `expected a whole number, got ${value}`);
  }
  const s = value.trim();
  if (DIGITS.test(s) && Number.isSafeInteger(Number(s))) return Number(s);
  throw new FieldError(field, `expected a whole number, got ${JSON.stringify(value)}`);
}

/** An exact decimal kept as a string ("2.0000"); a JSON number gets the provider's 4 places. */
export function optionalDecimal(value: Wire, field: string): string | null {
  if (blank(value)) return null;
  if (typeof value === "number") {
    if (!Number.isFinite(value))
      throw new FieldError(field, `expected a decimal number, got ${value}`);
    const fixed = value.toFixed(4);
    return Number(fixed) === value ? fixed : decimalText(value, field);
  }
  const s = value.trim();
  if (DECIMAL.test(s)) return s;
  throw new FieldError(field, `expected a decimal number, got ${JSON.stringify(value)}`);
}

/** A number in plain decimal notation: "0.0000001", never String()'s "1e-7". */
function decimalText(value: number, field: string): string {
  const text = String(value);
  const exponent = /^-?\d(?:\.(\d+))?e([-+])(\d+)$/.exec(text);
  if (exponent === null) return text;
  if (exponent[2] === "+") throw new FieldError(field, `expected a decimal number, got ${text}`);
  const places = (exponent[1]?.length ?? 0) + Number(exponent[3]);
  return value.toFixed(Math.min(places, 100));
}

// Past this, a number is milliseconds: as seconds it would be after the year 5000.
const MILLISECONDS_FROM = 1e11;

/**
 * A unix timestamp in seconds (milliseconds, as some platforms send, are recognised by their
 * size); 0 means "no time" (as PHP platforms send for unset times).
 */
export function optionalUnixTime(value: Wire, field: string): Date | null {
  if (blank(value)) return null;
  const seconds = typeof value === "number" ? value : UNIX.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new FieldError(
      field,
      `expected a unix timestamp in seconds, got ${JSON.stringify(value)}`,
    );
  }
  if (seconds === 0) return null;
  return new Date(Math.round(seconds >= MILLISECONDS_FROM ? seconds : seconds * 1000));
}
