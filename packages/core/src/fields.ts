import { z } from "zod";

// Wire field schemas check types only: senders mix numbers and strings freely (PHP), and
// composed webhooks send every value as a string, so most fields take both. Coercion to the
// normalized form happens in coerce.ts, in plain code: a zod transform costs about ten
// times the type check it wraps, and this runs once per pushed report.

/** A value senders send as a string or a number; the string check runs first. */
export const stringOrNumber = z.union([z.string(), z.number()]);
/** The same, for fields usually sent as numbers. */
export const numberOrString = z.union([z.number(), z.string()]);

export const optionalStringOrNumber = stringOrNumber.nullish();
export const optionalNumberOrString = numberOrString.nullish();
