import type { z } from "zod";
import {
  FieldError,
  optionalCount,
  optionalDecimal,
  optionalPhone,
  optionalText,
  optionalUnixTime,
  phone,
  requiredText,
} from "./coerce.js";
import { type ReportError, ReportkitError } from "./errors.js";
import {
  type CallReport,
  callFields,
  composedDeliveryFields,
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
export function parseWith(
  payload: unknown,
  readWallClock: WallClockReader,
  composed?: Kind,
): ParseResult {
  if (composed !== undefined) {
    return composed === "delivery"
      ? toDelivery(payload as Record<string, unknown>, readWallClock, composedDeliveryFields)
      : toCall(payload as Record<string, unknown>, readWallClock);
  }
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

function toDelivery(
  payload: Record<string, unknown>,
  readWallClock: WallClockReader,
  fields: typeof deliveryFields | typeof composedDeliveryFields = deliveryFields,
): ParseResult {
  const parsed = fields.safeParse(payload);
  if (!parsed.success) return invalid("delivery", parsed.error, payload);
  const p = parsed.data;
  try {
    const id = requiredText(p.id, "id");
    // Only a composed template can leave mobile out; the handler's type then says null.
    const mobile = (p.mobile == null ? null : phone(p.mobile, "mobile")) as string;
    const status = requiredText(p.status, "status");
    const credits = optionalDecimal(p.credits, "credits");
    const units = optionalCount(p.units, "units");
    const deliveredAt = time(p.deliv_at, "deliv_at", p.deliv_time, "deliv_time", readWallClock);
    const sentAt = time(p.sent_at, "sent_at", p.sent_time, "sent_time", readWallClock);
    const submittedAt = time(p.submit_at, "submit_at", p.submit_time, "submit_time", readWallClock);
    const report: DeliveryReport = {
      type: "delivery",
      id,
      mobile,
      status,
      credits,
      units,
      deliveredAt,
      sentAt,
      submittedAt,
      cid: optionalText(p.cid, "cid"),
      custom: optionalText(p.custom, "custom"),
      raw: payload,
    };
    return { ok: true, report };
  } catch (error) {
    return fieldFailure(error, "SMS delivery report");
  }
}

function toCall(payload: Record<string, unknown>, readWallClock: WallClockReader): ParseResult {
  const parsed = callFields.safeParse(payload);
  if (!parsed.success) return invalid("call", parsed.error, payload);
  const p = parsed.data;
  try {
    const status = requiredText(p.status, "status");
    const bridge = optionalPhone(p.bridge, "bridge");
    const from = optionalPhone(p.from, "from");
    const to = optionalPhone(p.to, "to");
    const startedAt = time(null, "", p.start_at, "start_at", readWallClock);
    const endedAt = time(null, "", p.end_at, "end_at", readWallClock);
    const duration = optionalCount(p.duration, "duration");
    const flowId = optionalCount(p.flow_id, "flow_id");
    const report: CallReport = {
      type: "call",
      webhookId: optionalText(p.webhook_id, "webhook_id"),
      mid: optionalText(p.mid, "mid"),
      bridge,
      from,
      to,
      startedAt,
      endedAt,
      duration,
      flowId,
      status,
      source: optionalText(p.source, "source"),
      recordingUrl: optionalText(p.recording_url, "recording_url"),
      raw: payload,
    };
    return { ok: true, report };
  } catch (error) {
    return fieldFailure(error, "call report");
  }
}

/** The unix field is the authority; the wall-clock string is the fallback. */
function time(
  unix: string | number | null | undefined,
  unixField: string,
  wallClock: string | null | undefined,
  wallClockField: string,
  readWallClock: WallClockReader,
): Date | null {
  const exact = optionalUnixTime(unix, unixField);
  if (exact !== null || wallClock == null) return exact;
  const read = readWallClock(wallClock);
  if (read === undefined) {
    throw new FieldError(
      wallClockField,
      `expected a date and time like "2021-04-09 16:27:51", got ${JSON.stringify(wallClock)}`,
    );
  }
  return read;
}

function fieldFailure(error: unknown, what: string): ParseResult {
  if (!(error instanceof FieldError)) throw error;
  return invalidField(
    error.field,
    `Field "${error.field}" of the ${what} is unusable: ${error.message}.`,
  );
}

function invalid(kind: Kind, error: z.ZodError, payload: Record<string, unknown>): ParseResult {
  const issue = error.issues[0];
  const field = issue?.path.map(String).join(".") ?? "";
  const value = payload[field];
  const what = kind === "delivery" ? "SMS delivery report" : "call report";
  const expected = issue?.code === "invalid_type" ? `a ${issue.expected}` : "a string or a number";
  const detail =
    value === undefined
      ? "it is required but missing"
      : `expected ${expected}, got ${describe(value)}`;
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
