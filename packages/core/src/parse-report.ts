import type { z } from "zod";
import { type ReportError, ReportkitError } from "./errors.js";
import {
  type CallReport,
  callFields,
  type DeliveryReport,
  deliveryFields,
  type Report,
} from "./schemas.js";
import { type WallClockReader, wallClockReader } from "./wall-clock.js";

export type ParseResult = { ok: true; report: Report } | { ok: false; error: ReportError };

export interface ParseOptions {
  /** IANA zone in which wall-clock strings without a zone are read. Default "UTC". */
  timeZone?: string;
}

type Kind = "delivery" | "call";

// Keys only one kind of report carries. `id` and `status` are shared.
const KEY_KIND: Record<string, Kind | undefined> = Object.assign(Object.create(null), {
  mobile: "delivery",
  credits: "delivery",
  units: "delivery",
  deliv_at: "delivery",
  sent_at: "delivery",
  submit_at: "delivery",
  deliv_time: "delivery",
  sent_time: "delivery",
  submit_time: "delivery",
  cid: "delivery",
  custom: "delivery",
  webhook_id: "call",
  mid: "call",
  bridge: "call",
  from: "call",
  to: "call",
  start_at: "call",
  end_at: "call",
  duration: "call",
  flow_id: "call",
  source: "call",
  recording_url: "call",
});

/**
 * Tells a delivery report from a call report by the keys it carries, before any validation:
 * validating against the wrong schema first would cost more than the whole parse.
 */
function kindOf(payload: Record<string, unknown>): Kind | undefined {
  if (payload.mobile !== undefined) return "delivery";
  let delivery = false;
  for (const key in payload) {
    const kind = KEY_KIND[key];
    if (kind === "call") return "call";
    if (kind === "delivery") delivery = true;
  }
  return delivery || Object.hasOwn(payload, "id") ? "delivery" : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * Validates and normalizes one pushed report. Never throws.
 *
 * @example
 * const result = parseReport(JSON.parse(body), { timeZone: "Asia/Kolkata" });
 * if (result.ok && result.report.type === "delivery") console.log(result.report.deliveredAt);
 */
export function parseReport(payload: unknown, options?: ParseOptions): ParseResult {
  return parseWith(payload, wallClockReader(options?.timeZone ?? "UTC"));
}

/** parseReport with the zone already resolved (the receiver resolves it once). */
export function parseWith(payload: unknown, readWallClock: WallClockReader): ParseResult {
  if (!isRecord(payload)) {
    return unrecognized(
      `The body is ${describe(payload)}, not a report. Send a JSON object with the fields of an SMS delivery report or a call report.`,
    );
  }
  const kind = kindOf(payload);
  if (kind === undefined) {
    return unrecognized(
      "The body is an object with none of the fields of an SMS delivery report (id, mobile, status) or a call report (mid, from, to, status, ...).",
    );
  }
  return kind === "delivery" ? toDelivery(payload, readWallClock) : toCall(payload, readWallClock);
}

function toDelivery(payload: Record<string, unknown>, readWallClock: WallClockReader): ParseResult {
  const parsed = deliveryFields.safeParse(payload);
  if (!parsed.success) return invalid("delivery", parsed.error);
  const p = parsed.data;
  const deliveredAt = time(p.deliv_at, p.deliv_time, readWallClock);
  if (deliveredAt === undefined) return badWallClock("deliv_time", payload.deliv_time);
  const sentAt = time(p.sent_at, p.sent_time, readWallClock);
  if (sentAt === undefined) return badWallClock("sent_time", payload.sent_time);
  const submittedAt = time(p.submit_at, p.submit_time, readWallClock);
  if (submittedAt === undefined) return badWallClock("submit_time", payload.submit_time);
  const report: DeliveryReport = {
    type: "delivery",
    id: p.id,
    mobile: p.mobile,
    status: p.status,
    credits: p.credits ?? null,
    units: p.units ?? null,
    deliveredAt,
    sentAt,
    submittedAt,
    cid: p.cid ?? null,
    custom: p.custom ?? null,
    raw: payload,
  };
  return { ok: true, report };
}

function toCall(payload: Record<string, unknown>, readWallClock: WallClockReader): ParseResult {
  const parsed = callFields.safeParse(payload);
  if (!parsed.success) return invalid("call", parsed.error);
  const p = parsed.data;
  const startedAt = time(null, p.start_at, readWallClock);
  if (startedAt === undefined) return badWallClock("start_at", payload.start_at);
  const endedAt = time(null, p.end_at, readWallClock);
  if (endedAt === undefined) return badWallClock("end_at", payload.end_at);
  const report: CallReport = {
    type: "call",
    webhookId: p.webhook_id ?? null,
    mid: p.mid ?? null,
    bridge: p.bridge ?? null,
    from: p.from ?? null,
    to: p.to ?? null,
    startedAt,
    endedAt,
    duration: p.duration ?? null,
    flowId: p.flow_id ?? null,
    status: p.status,
    source: p.source ?? null,
    recordingUrl: p.recording_url ?? null,
    raw: payload,
  };
  return { ok: true, report };
}

/** The unix field is the authority; the wall-clock string is the fallback. undefined: unreadable. */
function time(
  unix: Date | null | undefined,
  wallClock: string | null | undefined,
  readWallClock: WallClockReader,
): Date | null | undefined {
  if (unix != null) return unix;
  return wallClock == null ? null : readWallClock(wallClock);
}

function badWallClock(field: string, value: unknown): ParseResult {
  return invalidField(
    field,
    `Field "${field}" is not a date and time: expected "yyyy-mm-dd hh:mm:ss", got ${JSON.stringify(value)}.`,
  );
}

function invalid(kind: Kind, error: z.ZodError): ParseResult {
  const issue = error.issues[0];
  const field = issue?.path.map(String).join(".") ?? "";
  const what = kind === "delivery" ? "SMS delivery report" : "call report";
  const detail =
    issue?.code === "invalid_type" && issue.input === undefined
      ? "it is required but missing"
      : (issue?.message ?? "invalid value");
  return invalidField(field, `Field "${field}" of the ${what} is unusable: ${detail}.`);
}

function invalidField(field: string, message: string): ParseResult {
  return {
    ok: false,
    error: new ReportkitError("invalid_report", message, { field }) as ReportError,
  };
}

function unrecognized(message: string): ParseResult {
  return { ok: false, error: new ReportkitError("unrecognized_report", message) as ReportError };
}
