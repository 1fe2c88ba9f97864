import { z } from "zod";
import { optionalNumberOrString, optionalStringOrNumber, stringOrNumber } from "./fields.js";

/** SMPP delivery-receipt `stat` values seen in practice; any other string passes through. */
export const DELIVERY_STATUSES = [
  "DELIVRD",
  "UNDELIV",
  "EXPIRED",
  "REJECTD",
  "DELETED",
  "ACCEPTD",
  "UNKNOWN",
  "ENROUTE",
] as const;

/** Asterisk DIALSTATUS values; any other string passes through. */
export const CALL_STATUSES = [
  "ANSWER",
  "BUSY",
  "NOANSWER",
  "CANCEL",
  "CONGESTION",
  "CHANUNAVAIL",
] as const;

// `string & {}` keeps editor completion for the known values while accepting any string.
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number] | (string & {});
export type CallStatus = (typeof CALL_STATUSES)[number] | (string & {});

const isString = (v: unknown): v is string => typeof v === "string";

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

// The receiver validates with the strip variants: the untouched payload is kept in `raw`, so
// copying unknown keys again would be wasted work.
export const deliveryFields = z.object(deliveryShape);
export const callFields = z.object(callShape);
/** A composed delivery template need not carry {{mobile}}. */
export const composedDeliveryFields = deliveryFields.extend({ mobile: optionalNumberOrString });

const raw = z.record(z.string(), z.unknown());

/** A normalized SMS delivery report, as `onDelivery` receives it. */
export const DeliveryReportSchema = z.object({
  type: z.literal("delivery"),
  id: z.string(),
  mobile: z.string(),
  status: z.custom<DeliveryStatus>(isString),
  credits: z.string().nullable(),
  units: z.number().nullable(),
  deliveredAt: z.date().nullable(),
  sentAt: z.date().nullable(),
  submittedAt: z.date().nullable(),
  cid: z.string().nullable(),
  custom: z.string().nullable(),
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
  startedAt: z.date().nullable(),
  endedAt: z.date().nullable(),
  duration: z.number().nullable(),
  flowId: z.number().nullable(),
  status: z.custom<CallStatus>(isString),
  source: z.string().nullable(),
  recordingUrl: z.string().nullable(),
  raw,
});

export type DeliveryReport = z.infer<typeof DeliveryReportSchema>;
export type CallReport = z.infer<typeof CallReportSchema>;
export type Report = DeliveryReport | CallReport;
