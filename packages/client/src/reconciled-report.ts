import { classifyCallStatus } from "@reportkit/wire";
import type { CallStatusRecord, DlrRecord } from "./pull-schemas.js";
import { wallClockMs } from "./wall-clock.js";

/**
 * The request header that marks a report sent by `reconcile`, not pushed by the provider:
 * its value is the pull API the report was read from, `sms/status` or `outgoing/callstatus`.
 * A handler that wants to tell them apart reads `ctx.headers.get("x-reportkit-reconciled")`.
 */
export const RECONCILED_HEADER = "x-reportkit-reconciled";

/** A report as the provider would have pushed it: the JSON body's fields, in its order. */
export type PushedReport = Record<string, string | number>;

/**
 * The SMS delivery report the provider would have pushed for a message of the Pull DLR API,
 * so that the receiver's dedupe key (`delivery:<id>:<status>`) is that of the push it
 * replaces: `id`, `mobile`, `status` as they are; `charges` → `credits` (four decimals, as a
 * push writes them); `units`; `delivered_at` → `deliv_time`; `submitted_at` → `submit_time`;
 * `custom`, `custom1`, `location`, `provider` when they have a value. The record has nothing
 * for `sent_time`, `cid`, the unix `*_at` fields, `custom2`, `region` and the `*_code` fields:
 * they are left out, as a push leaves out what it lacks. `service`, `length` and `sender` are
 * not in a push and are not sent.
 */
export function deliveryReportOf(record: DlrRecord): PushedReport {
  const report: PushedReport = { id: record.id };
  if (record.mobile !== null) report.mobile = record.mobile;
  report.status = record.status;
  if (record.charges !== null) report.credits = record.charges.toFixed(4);
  if (record.units !== null) report.units = record.units;
  if (record.deliveredAt !== null) report.deliv_time = record.deliveredAt;
  if (record.submittedAt !== null) report.submit_time = record.submittedAt;
  for (const field of ["custom", "custom1", "location", "provider"] as const) {
    const value = record[field];
    if (value !== null) report[field] = value;
  }
  return report;
}

/**
 * The call report the provider would have pushed for a call of the call-status API: `id` →
 * `mid` (the call-status page names no other id, and a call report's dedupe key is
 * `call:<mid>:<to>:<status>:<start>`); `from` and `to` (JSON numbers when they are all
 * digits, as a push sends them); `start_at`, `end_at`; `duration`, the seconds from `start_at`
 * to `end_at`; `status`. The record has nothing for `bridge`, `flow_id`, `source`,
 * `recording_url` and `webhook_id`: they are left out. `channel`, `created_at`, `foreign_id`
 * and `dtmf` are not in a push and are not sent.
 */
export function callReportOf(record: CallStatusRecord): PushedReport {
  const report: PushedReport = {};
  if (record.from !== null) report.from = phone(record.from);
  if (record.to !== null) report.to = phone(record.to);
  if (record.startAt !== null) report.start_at = record.startAt;
  if (record.endAt !== null) report.end_at = record.endAt;
  const duration = secondsBetween(record.startAt, record.endAt);
  if (duration !== undefined) report.duration = String(duration);
  report.mid = record.id;
  report.status = record.status;
  return report;
}

/**
 * A call is over when wire's status table calls its status final, and an answered one (ANSWER,
 * COMPLETED) has ended: its end_at is set.
 */
export function callHasEnded(record: CallStatusRecord): boolean {
  const { final, outcome } = classifyCallStatus(record.status);
  return final && (outcome !== "answered" || record.endAt !== null);
}

/** All digits, at most 15 (E.164: exact as a JS number): the number a push sends. */
function phone(text: string): string | number {
  return /^[1-9]\d{0,14}$/.test(text) ? Number(text) : text;
}

/** Seconds from one wall-clock time to a later one of the same zone; undefined otherwise. */
function secondsBetween(start: string | null, end: string | null): number | undefined {
  const from = start === null ? undefined : wallClockMs(start);
  const to = end === null ? undefined : wallClockMs(end);
  if (from === undefined || to === undefined || to < from) return undefined;
  return Math.round((to - from) / 1000);
}
