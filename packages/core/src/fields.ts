import { z } from "zod";

// Field schemas for the wire payloads. Senders mix numbers and strings freely (PHP), and
// composed webhooks send every value as a string, so each field takes both and normalizes.
// A single custom check is used instead of z.union: a union whose first branch fails costs
// several times a whole object parse.

type Scalar = string | number;

const scalar = z.custom<Scalar>((v) => typeof v === "string" || typeof v === "number", {
  error: "expected a string or a number",
});

function fail(ctx: { issues: unknown[] }, input: unknown, message: string): never {
  (ctx.issues as object[]).push({ code: "custom", message, input });
  return z.NEVER as never;
}

const DIGITS = /^\d+$/;
const DECIMAL = /^-?\d+(?:\.\d+)?$/;
const UNIX = /^\d+(?:\.\d+)?$/;

/** A required text value (id, status): numbers become their decimal string. */
export const text = scalar.transform((v, ctx) => {
  const s = typeof v === "string" ? v.trim() : String(v);
  return s === "" ? fail(ctx, v, "expected a non-empty value") : s;
});

/** An optional text value; empty means absent. */
export const optionalText = scalar
  .transform((v) => {
    const s = typeof v === "string" ? v : String(v);
    return s === "" ? null : s;
  })
  .nullish();

/** A phone number: as sent, a JSON number becomes its digit string (exact to 15 digits). */
function toPhone(v: Scalar, ctx: { issues: unknown[] }): string {
  if (typeof v === "number") {
    return Number.isSafeInteger(v) && v >= 0
      ? String(v)
      : fail(ctx, v, `expected a phone number, got ${v}`);
  }
  const s = v.trim();
  return s === "" ? fail(ctx, v, "expected a phone number, got an empty string") : s;
}

export const phone = scalar.transform(toPhone);

export const optionalPhone = scalar
  .transform((v, ctx) => (typeof v === "string" && v.trim() === "" ? null : toPhone(v, ctx)))
  .nullish();

/** A whole number, sent as a number or a string of digits; empty means absent. */
export const optionalCount = scalar
  .transform((v, ctx) => {
    if (typeof v === "number") {
      return Number.isSafeInteger(v) && v >= 0
        ? v
        : fail(ctx, v, `expected a whole number, got ${v}`);
    }
    const s = v.trim();
    if (s === "") return null;
    return DIGITS.test(s) ? Number(s) : fail(ctx, v, `expected a whole number, got "${v}"`);
  })
  .nullish();

/** An exact decimal kept as a string ("2.0000"); a JSON number gets the provider's 4 places. */
export const optionalDecimal = scalar
  .transform((v, ctx) => {
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return fail(ctx, v, `expected a decimal number, got ${v}`);
      const fixed = v.toFixed(4);
      return Number(fixed) === v ? fixed : String(v);
    }
    const s = v.trim();
    if (s === "") return null;
    return DECIMAL.test(s) ? s : fail(ctx, v, `expected a decimal number, got "${v}"`);
  })
  .nullish();

/** A unix timestamp in seconds as a Date; 0 and empty mean "no time". */
export const optionalUnixTime = scalar
  .transform((v, ctx) => {
    const s = typeof v === "number" ? v : v.trim();
    if (s === "" || s === 0) return null;
    if (typeof s === "string" && !UNIX.test(s)) {
      return fail(ctx, v, `expected a unix timestamp in seconds, got "${v}"`);
    }
    const seconds = Number(s);
    if (!Number.isFinite(seconds) || seconds < 0) {
      return fail(ctx, v, `expected a unix timestamp in seconds, got ${v}`);
    }
    return seconds === 0 ? null : new Date(Math.round(seconds * 1000));
  })
  .nullish();

/** A wall-clock string, validated later (its zone is an option of the receiver). */
export const optionalWallClock = scalar
  .transform((v) => (typeof v === "string" ? v : String(v)))
  .nullish();
