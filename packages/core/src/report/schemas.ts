import {
  CALL_OUTCOMES,
  type CallStatus,
  DELIVERY_OUTCOMES,
  type DeliveryStatus,
} from "@reportkit/wire";
import { z } from "zod";
import { optionalNumberOrString, optionalStringOrNumber, stringOrNumber } from "./fields.js";

// The status vocabulary is @reportkit/wire's (statuses.ts): the known statuses, and what each
// says (`final`, `outcome`) on every report.
export {
  CALL_STATUSES,
  type CallStatus,
  DELIVERY_STATUSES,
  type DeliveryStatus,
} from "@reportkit/wire";

const isNonEmptyString = (v: unknown): v is string => typeof v === "string" && v !== "";

const optionalWallClock = z.string().nullish();

const deliveryShape = {
  id: stringOrNumber,
  mobile: stringOrNumber,
  status: stringOrNumber,
  credits: optionalStringOrNumber,
  units: optionalNumberOrString,
  deliv_at: optionalStringOrNumber,
  sent_at: optionalStringOrNumber,
  submit_at: optionalStringOrNumber,
  deliv_time: optionalWallClock,
  sent_time: optionalWallClock,
  submit_time: optionalWallClock,
  cid: optionalStringOrNumber,
  custom: optionalStringOrNumber,
  custom1: optionalStringOrNumber,
  custom2: optionalStringOrNumber,
  location: optionalStringOrNumber,
  region: optionalStringOrNumber,
  provider: optionalStringOrNumber,
  location_code: optionalStringOrNumber,
  region_code: optionalStringOrNumber,
  provider_code: optionalStringOrNumber,
};

const callShape = {
  webhook_id: optionalStringOrNumber,
  mid: optionalStringOrNumber,
  bridge: optionalNumberOrString,
  from: optionalNumberOrString,
  to: optionalNumberOrString,
  start_at: optionalWallClock,
  end_at: optionalWallClock,
  duration: optionalStringOrNumber,
  flow_id: optionalNumberOrString,
  status: stringOrNumber,
  source: optionalStringOrNumber,
  recording_url: optionalStringOrNumber,
};

/** The SMS delivery report as the provider pushes it (section 2.4); unknown keys allowed. */
export const DeliveryPayloadSchema = z.looseObject(deliveryShape);
/** The call report as the provider pushes it (section 2.5); unknown keys allowed. */
export const CallPayloadSchema = z.looseObject(callShape);

const raw = z.record(z.string(), z.unknown());

/**
 * A value the receiver could not read: the report field is null, the value is still in `raw`
 * under its wire name. `field` is the wire name ("units", "deliv_time"). Also a `status` the
 * status table does not know: kept as sent, not final, outcome `unknown`.
 */
export const ReportWarningSchema = z.object({ field: z.string(), message: z.string() });
export type ReportWarning = z.infer<typeof ReportWarningSchema>;
const warnings = z.array(ReportWarningSchema);

// What the receiver guarantees, not only the JS type: plain decimals with at least the
// provider's 4 places (never "1e+21"), whole numbers, valid dates (z.date() refuses an
// Invalid Date), and identity text that is never empty.
const identity = z.string().min(1);
const credits = z
  .string()
  .regex(/^-?\d+\.\d{4,}$/)
  .nullable();
const count = z.int().min(0).nullable();
const instant = z.date().nullable();

/** A normalized SMS delivery report, as `onDelivery` receives it. */
export const DeliveryReportSchema = z.object({
  type: z.literal("delivery"),
  id: identity,
  /** Null when the report has none (or an unreadable one: see `warnings`). */
  mobile: z.string().nullable(),
  status: z.custom<DeliveryStatus>(isNonEmptyString),
  /** True when nothing should follow this status (DELIVRD, UNDELIV, …; not ENROUTE). */
  final: z.boolean(),
  /** What the status says about the message; `unknown` also for a status not in the table. */
  outcome: z.enum(DELIVERY_OUTCOMES),
  credits,
  units: count,
  deliveredAt: instant,
  sentAt: instant,
  submittedAt: instant,
  cid: z.string().nullable(),
  custom: z.string().nullable(),
  /** The client's two further values (`custom1`, `custom2` on the wire). */
  custom1: z.string().nullable(),
  custom2: z.string().nullable(),
  /** Where the number is registered: country ("India"), circle ("Bangalore"), operator ("Jio"). */
  location: z.string().nullable(),
  region: z.string().nullable(),
  provider: z.string().nullable(),
  /** Their codes ("in", "KA", "RJ"; `location_code`, `region_code`, `provider_code` on the wire). */
  locationCode: z.string().nullable(),
  regionCode: z.string().nullable(),
  providerCode: z.string().nullable(),
  /** Values that could not be read (their field is null); `[]` when every value was read. */
  warnings,
  raw,
});

/** A normalized call report, as `onCall` receives it. */
export const CallReportSchema = z.object({
  type: z.literal("call"),
  webhookId: z.string().nullable(),
  mid: z.string().nullable(),
  bridge: z.string().nullable(),
  from: z.string().nullable(),
  to: z.string().nullable(),
  startedAt: instant,
  endedAt: instant,
  duration: count,
  flowId: count,
  status: z.custom<CallStatus>(isNonEmptyString),
  /** True for every known status: a call report is pushed once the call has ended. */
  final: z.boolean(),
  /** Whether the callee answered; `unknown` for a status not in the table. */
  outcome: z.enum(CALL_OUTCOMES),
  source: z.string().nullable(),
  recordingUrl: z.string().nullable(),
  /** Values that could not be read (their field is null); `[]` when every value was read. */
  warnings,
  raw,
});

export type DeliveryReport = z.infer<typeof DeliveryReportSchema>;
export type CallReport = z.infer<typeof CallReportSchema>;
export type Report = DeliveryReport | CallReport;
