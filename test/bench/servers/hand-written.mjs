// What a careful user writes without reportkit: a constant-time bearer check and a zod
// schema for each report. Shared by the three frameworks' hand-written servers so they do the
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

/** The call report as the provider's documentation shows it (numbers where it sends numbers). */
export const CallReport = z.object({
  mid: z.string(),
  status: z.string(),
  bridge: z.number().optional(),
  from: z.number().optional(),
  to: z.number().optional(),
  start_at: z.string().optional(),
  end_at: z.string().optional(),
  duration: z.string().optional(),
  flow_id: z.number().optional(),
  source: z.string().optional(),
  recording_url: z.string().optional(),
});

/** A DLR carries `mobile`, a call report does not: the schema to check a body against. */
export function validReport(body) {
  const schema =
    typeof body === "object" && body !== null && body.mobile !== undefined
      ? DeliveryReport
      : CallReport;
  return schema.safeParse(body).success;
}
