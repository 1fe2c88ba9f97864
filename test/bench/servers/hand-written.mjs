// What a careful user writes without reportkit: a constant-time bearer check and a zod
// schema for the DLR. Shared by the three frameworks' hand-written servers so they do the
// same work.
import { timingSafeEqual } from "node:crypto";
import { z } from "zod";

/** Constant-time comparison of the whole Authorization value. */
export function bearerCheck(token) {
  const expected = Buffer.from(`Bearer ${token}`);
  return (header) => {
    if (typeof header !== "string") return false;
    const given = Buffer.from(header);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
}

/** The SMS delivery report as the provider's documentation shows it. */
export const DeliveryReport = z.object({
  id: z.string(),
  mobile: z.string(),
  status: z.string(),
  credits: z.string().optional(),
  units: z.number().optional(),
  deliv_time: z.string().optional(),
  sent_time: z.string().optional(),
  submit_time: z.string().optional(),
  cid: z.string().optional(),
  custom: z.string().optional(),
});
