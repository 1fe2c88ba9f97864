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

/** Required text (id, status); a number becomes its decimal string. */
export function requiredText(value: string | number, field: string): string {
  const s = typeof value === "string" ? value.trim() : String(value);
  if (s === "") throw new FieldError(field, "expected a non-empty value");
  return s;
}

export function optionalText(value: Wire): string | null {
  return blank(value) ? null : typeof value === "string" ? value : String(value);
}

/** A phone number as sent; a JSON number becomes its digit string (exact to 15 digits). */
export function phone(value: string | number, field: string): string {
  if (typeof value === "number") {
    if (Number.isSafeInteger(value) && value >= 0) return String(value);
    throw new FieldError(field, `expected a phone number, got ${value}`);
  }
  const s = value.trim();
  if (s === "") throw new FieldError(field, "expected a phone number, got an empty string");
  return s;
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
  if (DIGITS.test(s)) return Number(s);
  throw new FieldError(field, `expected a whole number, got ${JSON.stringify(value)}`);
}

/** An exact decimal kept as a string ("2.0000"); a JSON number gets the provider's 4 places. */
export function optionalDecimal(value: Wire, field: string): string | null {
  if (blank(value)) return null;
  if (typeof value === "number") {
    if (!Number.isFinite(value))
      throw new FieldError(field, `expected a decimal number, got ${value}`);
    const fixed = value.toFixed(4);
    return Number(fixed) === value ? fixed : String(value);
  }
  const s = value.trim();
  if (DECIMAL.test(s)) return s;
  throw new FieldError(field, `expected a decimal number, got ${JSON.stringify(value)}`);
}

/** A unix timestamp in seconds; 0 means "no time" (as PHP platforms send for unset times). */
export function optionalUnixTime(value: Wire, field: string): Date | null {
  if (blank(value)) return null;
  const seconds = typeof value === "number" ? value : UNIX.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new FieldError(
      field,
      `expected a unix timestamp in seconds, got ${JSON.stringify(value)}`,
    );
  }
  return seconds === 0 ? null : new Date(Math.round(seconds * 1000));
}
