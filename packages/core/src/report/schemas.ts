// The zod schemas users import, built from @reportkit/wire's field tables (as the parser reads
// them): the wire payloads as senders push them, the reports as handlers receive them.
import {
  CALL_FIELD_TABLE,
  CALL_OUTCOMES,
  type CallStatus,
  DELIVERY_FIELD_TABLE,
  DELIVERY_OUTCOMES,
  DELIVERY_REASONS,
  type DeliveryStatus,
  type FieldReading,
  type FieldRow,
  UNSUBSCRIBE_FIELD_TABLE,
} from "@reportkit/wire";
import { z } from "zod";

export {
  CALL_STATUSES,
  type CallStatus,
  DELIVERY_STATUSES,
  type DeliveryStatus,
} from "@reportkit/wire";

type Table = Readonly<Record<string, FieldRow>>;

// ---- The wire payloads ------------------------------------------------------------------

/** Senders send a string or a number (PHP mixes them; composed webhooks send text). */
const stringOrNumber = z.union([z.string(), z.number()]);
const numberOrString = z.union([z.number(), z.string()]);

const WIRE = {
  identity: stringOrNumber,
  status: stringOrNumber,
  phone: numberOrString,
  text: stringOrNumber,
  count: numberOrString,
  decimal: stringOrNumber,
  unixTime: stringOrNumber,
  wallClock: z.string(),
  timestamp: z.string(),
} as const satisfies Record<FieldReading, z.ZodType>;

type Sent = { required: true } | { always: true };
type WireShape<T extends Table> = {
  [K in keyof T]: T[K] extends Sent
    ? (typeof WIRE)[T[K]["read"]]
    : z.ZodOptional<z.ZodNullable<(typeof WIRE)[T[K]["read"]]>>;
};

function wireShape<T extends Table>(table: T): WireShape<T> {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, row] of Object.entries(table)) {
    const wire = WIRE[row.read];
    shape[name] = "required" in row || "always" in row ? wire : wire.nullish();
  }
  return shape as WireShape<T>;
}

/** The SMS delivery report as the provider pushes it; unknown keys allowed. */
export const DeliveryPayloadSchema = z.looseObject(wireShape(DELIVERY_FIELD_TABLE));
/** The call report (outbound-dial or Click2Call) as the provider pushes it; unknown keys allowed. */
export const CallPayloadSchema = z.looseObject(wireShape(CALL_FIELD_TABLE));
/** The opt-out as the provider pushes it; unknown keys allowed. */
export const UnsubscribePayloadSchema = z.looseObject(wireShape(UNSUBSCRIBE_FIELD_TABLE));

// ---- The reports ------------------------------------------------------------------------

const isNonEmptyString = (v: unknown): v is string => typeof v === "string" && v !== "";

/** A value that could not be read (null, kept in `raw`) by its wire name, or an unknown status. */
export const ReportWarningSchema = z.object({ field: z.string(), message: z.string() });
export type ReportWarning = z.infer<typeof ReportWarningSchema>;

// What the receiver guarantees, not only the JS type: plain decimals (never "1e+21"), whole
// numbers, valid dates, identity text that is never empty.
const identity = z.string().min(1);
const instant = z.date().nullable();
const decimal = z.string().regex(/^-?\d+\.\d{4,}$/);
const READ = {
  identity: identity.nullable(),
  status: identity,
  phone: z.string().nullable(),
  text: z.string().nullable(),
  count: z.int().min(0).nullable(),
  decimal: decimal.nullable(),
  unixTime: instant,
  wallClock: instant,
  timestamp: instant,
} as const satisfies Record<FieldReading, z.ZodType>;

type ReportShape<T extends Table, Status extends z.ZodType> = {
  [K in keyof T as T[K]["field"]]: T[K]["read"] extends "status"
    ? Status
    : T[K] extends { required: true }
      ? typeof identity
      : (typeof READ)[T[K]["read"]];
};

function reportShape<T extends Table, Status extends z.ZodType>(
  table: T,
  status: Status,
): ReportShape<T, Status> {
  const shape: Record<string, z.ZodType> = {};
  for (const row of Object.values(table)) {
    shape[row.field] =
      row.read === "status" ? status : "required" in row ? identity : READ[row.read];
  }
  return shape as ReportShape<T, Status>;
}

const common = {
  /** Values that could not be read (their field is null); `[]` when every value was read. */
  warnings: z.array(ReportWarningSchema),
  /** The body as sent (a composed request's values by the customer's own keys). */
  raw: z.record(z.string(), z.unknown()),
};

/** A normalized SMS delivery report, as `onDelivery` receives it. */
export const DeliveryReportSchema = z.object({
  type: z.literal("delivery"),
  ...reportShape(DELIVERY_FIELD_TABLE, z.custom<DeliveryStatus>(isNonEmptyString)),
  /** True when nothing should follow this status (DELIVRD, UNDELIV, …; not ENROUTE). */
  final: z.boolean(),
  /** What the status says about the message; `unknown` also for a status not in the table. */
  outcome: z.enum(DELIVERY_OUTCOMES),
  /** Why it was not delivered (a class of the status table); null when delivered or pending. */
  reason: z.enum(DELIVERY_REASONS).nullable(),
  /** Whether sending the same message again later may succeed (a switched-off handset: yes). */
  transient: z.boolean(),
  ...common,
});

/** A normalized call report (outbound-dial or Click2Call), as `onCall` receives it. */
export const CallReportSchema = z.object({
  type: z.literal("call"),
  ...reportShape(CALL_FIELD_TABLE, z.custom<CallStatus>(isNonEmptyString)),
  /** True for every known status: a call report is pushed once the call has ended. */
  final: z.boolean(),
  /** Whether the callee answered; `unknown` for a status not in the table. */
  outcome: z.enum(CALL_OUTCOMES),
  /** Whether calling again later may get through (busy, no answer, no channel). */
  transient: z.boolean(),
  /**
   * When `recordingUrl` stops working: its presigned expiry, else the report's time (else the
   * call's end, else its start) plus the documented 2 hours (docs/recordings.md).
   */
  recordingExpiresAt: z.date().nullable(),
  ...common,
});

/** An opt-out, as `onUnsubscribe` receives it: the number may no longer be messaged. */
export const UnsubscribeReportSchema = z.object({
  type: z.literal("unsubscribe"),
  ...reportShape(UNSUBSCRIBE_FIELD_TABLE, identity),
  ...common,
});

/** Another event (WhatsApp, RCS, Viber, inbound, contacts, links), as `onEvent` gets it. */
export const EventReportSchema = z.object({
  type: z.literal("event"),
  /** "whatsapp:message:status", "vmn:message:in", "contacts:subscriber:subscription", "link:visit". */
  event: z.string().min(1),
  /** The payload's `id`, as text; null when it has none. */
  id: z.string().min(1).nullable(),
  /** The payload's `status`, as text; null when it has none. */
  status: z.string().min(1).nullable(),
  payload: z.record(z.string(), z.unknown()),
  ...common,
});

export type DeliveryReport = z.infer<typeof DeliveryReportSchema>;
export type CallReport = z.infer<typeof CallReportSchema>;
export type UnsubscribeReport = z.infer<typeof UnsubscribeReportSchema>;
export type EventReport = z.infer<typeof EventReportSchema>;
/** Any body the receiver takes: an SMS delivery report, a call report, an opt-out or an event. */
export type Report = DeliveryReport | CallReport | UnsubscribeReport | EventReport;

export const REPORT_SCHEMAS = {
  delivery: DeliveryReportSchema,
  call: CallReportSchema,
  unsubscribe: UnsubscribeReportSchema,
  event: EventReportSchema,
} as const;
