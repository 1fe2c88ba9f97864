import { z } from "zod";
import { count, paginated } from "./paginator.js";
import {
  optionalCount,
  optionalDecimal,
  optionalText,
  resource,
  text,
  timestamp,
  wallClock,
} from "./record-fields.js";

// The pull APIs' records, as the provider's pages v2/sms/pull-dlr.md, v2/reach/status.md and
// v2/sms/status-report.md show them. Lenient on format as the webhook schema is: unknown fields
// pass through (kept in `raw`), numbers may come as digit strings and the other way round, and
// "" (the pages' "no value", e.g. `delivered_at` before a receipt) is read as null. Strict on
// what identifies a record: `id` and `status` must be there.

/** A message as the Pull DLR API (`GET sms/status`) serves it. */
export const DlrRecordWireSchema = z.looseObject({
  id: text,
  mobile: optionalText,
  status: text,
  units: optionalCount,
  service: optionalText,
  length: optionalCount,
  charges: optionalDecimal,
  custom: optionalText,
  custom1: optionalText,
  location: optionalText,
  provider: optionalText,
  submitted_at: wallClock,
  delivered_at: wallClock,
  sender: optionalText,
});

/** A message and its current status, as the client returns it; `raw` keeps it as served. */
export const DlrRecordSchema = resource(DlrRecordWireSchema, (r) => ({
  /** The message id, "<uuid>:<n>": the `id` of its delivery report. */
  id: r.id,
  mobile: r.mobile,
  /** The current status: DELIVRD, UNDELIV, ..., or AWAITING-DLR while there is no receipt. */
  status: r.status,
  units: r.units,
  /** "T" (transactional) and the like. */
  service: r.service,
  /** The message's length in characters. */
  length: r.length,
  /** What the message cost, in credits. */
  charges: r.charges,
  custom: r.custom,
  custom1: r.custom1,
  location: r.location,
  provider: r.provider,
  /** "yyyy-mm-dd HH:MM:SS" in the provider's zone, as served. */
  submittedAt: r.submitted_at,
  /** As submittedAt; null while there is no receipt (the API sends ""). */
  deliveredAt: r.delivered_at,
  sender: r.sender,
}));

export type DlrRecord = z.output<typeof DlrRecordSchema>;

/** `GET sms/status`: one page (100 records) by `date` or `group_id`, every record otherwise. */
export const DlrPageSchema = paginated(DlrRecordSchema);
export type DlrPage = z.output<typeof DlrPageSchema>;

/** A call as the call-status API (`GET outgoing/callstatus`) serves it. */
export const CallStatusRecordWireSchema = z.looseObject({
  id: text,
  channel: optionalText,
  from: optionalText,
  to: optionalText,
  created_at: wallClock,
  foreign_id: optionalText,
  status: text,
  start_at: wallClock,
  end_at: wallClock,
  dtmf: optionalText,
});

/** A call and its status, as the client returns it; `raw` keeps it as served. */
export const CallStatusRecordSchema = resource(CallStatusRecordWireSchema, (r) => ({
  /** The call's id, as the API that made it answered. */
  id: r.id,
  /** "outgoing" and the like. */
  channel: r.channel,
  /** Phone numbers as digit strings, whether served as strings or numbers. */
  from: r.from,
  to: r.to,
  createdAt: r.created_at,
  /** Your own id for the call, when you gave one. */
  foreignId: r.foreign_id,
  /** ANSWER, BUSY, NOANSWER, CANCEL, CONGESTION, ... */
  status: r.status,
  startAt: r.start_at,
  endAt: r.end_at,
  /** The keys pressed during the call. */
  dtmf: r.dtmf,
}));

export type CallStatusRecord = z.output<typeof CallStatusRecordSchema>;

/**
 * `GET outgoing/callstatus`: the envelope `{ status: 200, message, data }`; read as one page,
 * or page by page if the API ever adds the paginator.
 */
export const CallStatusPageSchema = paginated(CallStatusRecordSchema);
export type CallStatusPage = z.output<typeof CallStatusPageSchema>;

// PHP's json_encode writes an empty array as [] whatever it stands for: an object with no
// keys may come as [].
const emptyArray = z.array(z.never()).transform(() => ({}));

const SummaryDaySchema = z.looseObject({
  date: z.string().optional(),
  status: z.union([z.record(z.string(), count), emptyArray]),
});

/** One day of the status summary: a count per status. */
export interface StatusSummaryDay {
  /** "yyyy-mm-dd". */
  date: string;
  /** Messages per status that day, e.g. { DELIVRD: 150781, UNDELIV: 1450 }. */
  statuses: Record<string, number>;
  /** Messages that day, every status. */
  total: number;
}

/** `GET sms/report?daterange=from|to`: per day, a count per status; days in date order. */
export const StatusSummarySchema = z
  .looseObject({
    message: z.string().optional(),
    data: z.union([z.record(z.string(), SummaryDaySchema), emptyArray]),
  })
  .transform((r): { days: StatusSummaryDay[] } => {
    const days = Object.entries(r.data).map(([key, day]) => {
      const statuses: Record<string, number> = { ...day.status };
      const total = Object.values(statuses).reduce((sum, n) => sum + n, 0);
      return { date: day.date ?? key, statuses, total };
    });
    days.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    return { days };
  });

export type StatusSummary = z.output<typeof StatusSummarySchema>;

/** An event subscription as `developer/subscriptions` serves it (v2/subscriptions/index.md). */
export const SubscriptionWireSchema = z.looseObject({
  id: text,
  event: text,
  identity: text,
  payload: z.unknown().optional(),
  webhook_id: text,
  created_at: timestamp,
});

/** A subscription as the client returns it; `raw` keeps it as served. */
export const SubscriptionSchema = resource(SubscriptionWireSchema, (s) => ({
  /** The API's id (a number, given as text: pass it to get and delete). */
  id: s.id,
  /** The event routed, e.g. "sms:message:status" (v2/event/index.md lists them). */
  event: s.event,
  /** Which sources of the event, e.g. "all". */
  identity: s.identity,
  /** As served: the pages show [] on create and null in the list. */
  payload: s.payload ?? null,
  /** The webhook that receives every report of the event. */
  webhookId: s.webhook_id,
  createdAt: s.created_at,
}));

export type Subscription = z.output<typeof SubscriptionSchema>;

/** `GET developer/subscriptions`: 15 a page. */
export const SubscriptionPageSchema = paginated(SubscriptionSchema);
export type SubscriptionPage = z.output<typeof SubscriptionPageSchema>;

/** Create and show: the envelope around one subscription. */
export const SubscriptionResponseSchema = z.looseObject({
  message: z.string().optional(),
  data: SubscriptionSchema,
});
