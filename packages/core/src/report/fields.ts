import { z } from "zod";

// Wire field schemas describe the documented payloads for users who validate them: senders
// mix numbers and strings freely (PHP), and composed webhooks send every value as a string,
// so most fields take both. The receiver does not run them: it reads each field on its own in
// coerce.ts, so one unreadable value costs that value (null and a warning), not the report.

/** A value senders send as a string or a number; the string check runs first. */
export const stringOrNumber = z.union([z.string(), z.number()]);
/** The same, for fields usually sent as numbers. */
export const numberOrString = z.union([z.number(), z.string()]);

export const optionalStringOrNumber = stringOrNumber.nullish();
export const optionalNumberOrString = numberOrString.nullish();
