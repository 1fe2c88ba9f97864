import { z } from "zod";
import { count } from "./paginator.js";
import { WALL_CLOCK } from "./wall-clock.js";

// The field types the pull APIs' records share: lenient on format (digit strings for numbers
// and numbers for text, "" read as null, as the provider's pages write "none"), each failure a
// message that says what was expected.

export const text = z.union([z.string(), z.number().transform(String)], {
  error: "expected a string",
});

/** Text, or null when absent, null or "" (the pages write "" for "none"). */
export const optionalText = z
  .union([z.string(), z.number().transform(String)], { error: "expected a string" })
  .nullish()
  .transform((s) => (s == null || s === "" ? null : s));

export const optionalCount = z
  .union([count, z.literal("")])
  .nullish()
  .transform((n) => (n == null || n === "" ? null : n));

/** A decimal sent as a number or as a numeric string ("0.2500"). */
export const optionalDecimal = z
  .union(
    [
      z.number(),
      z
        .string()
        .regex(/^\s*-?\d+(\.\d+)?\s*$/)
        .transform(Number),
      z.literal(""),
    ],
    { error: "expected a number" },
  )
  .nullish()
  .transform((n) => (n == null || n === "" ? null : n));

/**
 * "yyyy-mm-dd HH:MM:SS" as served (no zone: the provider's, Asia/Kolkata), or null for "" and
 * absent ones.
 */
export const wallClock = z
  .string({ error: "expected a wall-clock time such as 2018-07-06 09:57:42" })
  .nullish()
  .refine((s) => s == null || s === "" || WALL_CLOCK.test(s.trim()), {
    error: "expected a wall-clock time such as 2018-07-06 09:57:42, or an empty string",
  })
  .transform((s) => (s == null || s.trim() === "" ? null : s.trim()));

export const timestamp = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), {
    error: "expected an ISO 8601 timestamp such as 2022-12-07T06:20:09.000000Z",
  })
  .nullish()
  .transform((s) => (s == null ? null : new Date(s)));

/** A schema that checks `wire`, then returns `map` of it with the object exactly as served. */
export function resource<S extends z.ZodType, O extends object>(
  wire: S,
  map: (w: z.output<S>) => O,
) {
  return z.unknown().transform((input, ctx) => {
    const parsed = wire.safeParse(input);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        ctx.addIssue({ code: "custom", message: issue.message, path: issue.path as PropertyKey[] });
      }
      return z.NEVER;
    }
    return { ...map(parsed.data), raw: input as Readonly<Record<string, unknown>> };
  });
}
