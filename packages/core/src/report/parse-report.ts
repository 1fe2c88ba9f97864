import {
  classifyCallStatus,
  classifyDeliveryStatus,
  PROVIDER_TIME_ZONE,
  type StatusClass,
} from "@reportkit/wire";
import { isRecord } from "@reportkit/wire/internal";
import { invalidReport, type ReportError, unrecognizedReport } from "../reply/errors.js";
import { boundedRaw } from "./bounded-raw.js";
import {
  describe,
  quote,
  type Read,
  readCount,
  readDecimal,
  readIdentity,
  readPhone,
  readText,
  readUnixTime,
  Unreadable,
  unixInstant,
} from "./coerce.js";
import { carriesZone, type WallClockReader, wallClockReader } from "./parse-wall-clock.js";
import type { CallReport, DeliveryReport, Report, ReportWarning } from "./schemas.js";

export type ParseResult =
  | { ok: true; report: Report }
  /** `kind`: what the payload was recognised as, when it was (an unusable id, say). */
  | { ok: false; error: ReportError; kind?: Kind };

export interface ParseOptions {
  /**
   * IANA zone in which wall-clock strings without a zone are read. Default
   * `PROVIDER_TIME_ZONE` ("Asia/Kolkata"), the zone the provider writes them in.
   */
  timeZone?: string;
}

type Kind = "delivery" | "call";
type Payload = Record<string, unknown>;

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
  custom1: "delivery",
  custom2: "delivery",
  location: "delivery",
  region: "delivery",
  provider: "delivery",
  location_code: "delivery",
  region_code: "delivery",
  provider_code: "delivery",
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

/** Tells a delivery report from a call report by the keys it carries. */
function kindOf(payload: Payload): Kind | undefined {
  if (payload.mobile !== undefined) return "delivery";
  let delivery = false;
  for (const key in payload) {
    const kind = KEY_KIND[key];
    if (kind === "call") return "call";
    if (kind === "delivery") delivery = true;
  }
  return delivery || Object.hasOwn(payload, "id") ? "delivery" : undefined;
}

/**
 * Reads and normalizes one pushed report. Never throws. It is refused only when it cannot be
 * identified: a delivery report needs a usable `id` and `status`, a call report a `status`
 * and a `mid` or `webhook_id`. Any other value that cannot be read becomes null and is listed
 * in `report.warnings`; `report.raw` keeps it as sent.
 *
 * @example
 * const result = parseReport(JSON.parse(body));
 * if (result.ok && result.report.type === "delivery") console.log(result.report.deliveredAt);
 * if (result.ok) for (const w of result.report.warnings) console.warn(w.field, w.message);
 */
export function parseReport(payload: unknown, options?: ParseOptions): ParseResult {
  return parseWith(payload, wallClockReader(options?.timeZone ?? PROVIDER_TIME_ZONE));
}

/**
 * parseReport with the zone already resolved (the receiver resolves it once). `composed`:
 * the payload a composed template produced, of that kind, holding only the template's fields.
 */
export function parseWith(
  payload: unknown,
  readWallClock: WallClockReader,
  composed?: Kind,
): ParseResult {
  if (composed !== undefined) {
    return composed === "delivery"
      ? toDelivery(payload as Payload, readWallClock)
      : toCall(payload as Payload, readWallClock);
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

const DELIVERY = "SMS delivery report";
const CALL = "call report";

function toDelivery(p: Payload, readWallClock: WallClockReader): ParseResult {
  const id = readIdentity(p.id);
  if (typeof id !== "string") return unidentified("id", id, p.id, DELIVERY);
  const status = readIdentity(p.status);
  if (typeof status !== "string") return unidentified("status", status, p.status, DELIVERY);
  // A fresh array per report: handlers may add their own. Entries only when a value fails.
  const warnings: ReportWarning[] = [];
  const { final, outcome } = classified(classifyDeliveryStatus(status), status, DELIVERY, warnings);
  const report: DeliveryReport = {
    type: "delivery",
    id,
    mobile: warn(readPhone(p.mobile), "mobile", warnings),
    status,
    final,
    outcome,
    credits: warn(readDecimal(p.credits), "credits", warnings),
    units: warn(readCount(p.units), "units", warnings),
    deliveredAt: time(p.deliv_at, "deliv_at", p.deliv_time, "deliv_time", readWallClock, warnings),
    sentAt: time(p.sent_at, "sent_at", p.sent_time, "sent_time", readWallClock, warnings),
    submittedAt: time(
      p.submit_at,
      "submit_at",
      p.submit_time,
      "submit_time",
      readWallClock,
      warnings,
    ),
    cid: warn(readText(p.cid), "cid", warnings),
    custom: warn(readText(p.custom), "custom", warnings),
    custom1: warn(readText(p.custom1), "custom1", warnings),
    custom2: warn(readText(p.custom2), "custom2", warnings),
    location: warn(readText(p.location), "location", warnings),
    region: warn(readText(p.region), "region", warnings),
    provider: warn(readText(p.provider), "provider", warnings),
    locationCode: warn(readText(p.location_code), "location_code", warnings),
    regionCode: warn(readText(p.region_code), "region_code", warnings),
    providerCode: warn(readText(p.provider_code), "provider_code", warnings),
    warnings,
    raw: boundedRaw(p, warnings),
  };
  return { ok: true, report };
}

function toCall(p: Payload, readWallClock: WallClockReader): ParseResult {
  const status = readIdentity(p.status);
  if (typeof status !== "string") return unidentified("status", status, p.status, CALL);
  const warnings: ReportWarning[] = [];
  const { final, outcome } = classified(classifyCallStatus(status), status, CALL, warnings);
  const mid = readIdentity(p.mid);
  const webhookId = readIdentity(p.webhook_id);
  // A composed template always carries one of them (the grammar's IDENTITY_VARIABLES).
  if (typeof mid !== "string" && typeof webhookId !== "string") return unidentifiedCall(p);
  const report: CallReport = {
    type: "call",
    webhookId: warn(webhookId, "webhook_id", warnings),
    mid: warn(mid, "mid", warnings),
    bridge: warn(readPhone(p.bridge), "bridge", warnings),
    from: warn(readPhone(p.from), "from", warnings),
    to: warn(readPhone(p.to), "to", warnings),
    startedAt: time(undefined, "", p.start_at, "start_at", readWallClock, warnings),
    endedAt: time(undefined, "", p.end_at, "end_at", readWallClock, warnings),
    duration: warn(readCount(p.duration), "duration", warnings),
    flowId: warn(readCount(p.flow_id), "flow_id", warnings),
    status,
    final,
    outcome,
    source: warn(readText(p.source), "source", warnings),
    recordingUrl: warn(readText(p.recording_url), "recording_url", warnings),
    warnings,
    raw: boundedRaw(p, warnings),
  };
  return { ok: true, report };
}

/** A status's class; a warning when the status table does not know it (it is taken all the same). */
function classified<Outcome extends string>(
  found: StatusClass<Outcome>,
  status: string,
  what: string,
  warnings: ReportWarning[],
): StatusClass<Outcome> {
  if (!found.known) {
    warnings.push({
      field: "status",
      message: `${quote(status)} is not a status of the ${what} that reportkit knows; taken as sent, as not final with outcome "unknown"`,
    });
  }
  return found;
}

/** The value, or null with a warning naming the field when it could not be read. */
function warn<T>(read: Read<T>, field: string, warnings: ReportWarning[]): T | null {
  // Text, numbers and null, the usual values, without a prototype walk.
  if (typeof read !== "object" || read === null || !(read instanceof Unreadable)) {
    return read as T | null;
  }
  warnings.push({ field, message: `${read.message}; set to null, the value is kept in raw` });
  return null;
}

/**
 * The instant of a unix field and its wall-clock twin. The unix field is the authority; the
 * wall-clock string is the fallback, and when both are there they are held against each other.
 */
function time(
  unixValue: unknown,
  unixField: string,
  wallValue: unknown,
  wallClockField: string,
  readWallClock: WallClockReader,
  warnings: ReportWarning[],
): Date | null {
  const exact = unixValue === undefined ? null : warn(readUnixTime(unixValue), unixField, warnings);
  if (wallValue === undefined) return exact;
  const wall = warn(readWallClockValue(wallValue, readWallClock), wallClockField, warnings);
  if (exact === null) return wall;
  if (wall !== null && Math.floor(wall.getTime() / 1000) !== Math.floor(exact.getTime() / 1000)) {
    warnings.push(pairWarning(unixField, exact, wallClockField, wallValue, wall, readWallClock));
  }
  return exact;
}

// A unix time where a wall-clock string was expected: seconds (10 digits) or milliseconds
// (13). The provider's documentation gives {{sent_time}} and {{submit_time}} both meanings.
const UNIX_DIGITS = /^(?:\d{10}|\d{13})$/;

/** A wall-clock string read in the zone; unix digits as a unix time; 0 as "no time". */
function readWallClockValue(value: unknown, readWallClock: WallClockReader): Read<Date> {
  if (typeof value === "string") {
    const read = readWallClock(value);
    if (read !== undefined) return read;
    const s = value.trim();
    if (UNIX_DIGITS.test(s)) return unixInstant(Number(s), value);
    if (/^0+$/.test(s)) return null;
  } else if (typeof value === "number") {
    if (value === 0) return null;
    if (Number.isSafeInteger(value) && UNIX_DIGITS.test(String(value))) {
      return unixInstant(value, value);
    }
  } else if (value === null) {
    return null;
  }
  return new Unreadable(
    `expected a date and time like "2021-04-09 16:27:51" (or a unix time), got ${quote(value)}`,
  );
}

/** Says how far a wall-clock twin is from its unix field, and which zone the pair implies. */
function pairWarning(
  unixField: string,
  exact: Date,
  wallClockField: string,
  wallValue: unknown,
  wall: Date,
  readWallClock: WallClockReader,
): ReportWarning {
  const off = wall.getTime() - exact.getTime();
  const { timeZone } = readWallClock;
  let message = `${wallClockField} ${quote(wallValue)} is ${span(off)} off ${unixField}`;
  const naive =
    typeof wallValue === "string" && !carriesZone(wallValue)
      ? wallClockReader("UTC")(wallValue)
      : undefined;
  if (naive instanceof Date) {
    message += ` in ${timeZone}: `;
    const implied = naive.getTime() - exact.getTime();
    message +=
      implied % 900_000 === 0 && Math.abs(implied) <= 14 * 3_600_000
        ? `the pair implies UTC${utcOffset(implied)}`
        : "no time zone explains the pair";
  }
  return { field: wallClockField, message: `${message}; ${unixField} is used` };
}

/** "5 h 30 min", "3 s": a difference as people read it. */
function span(ms: number): string {
  let seconds = Math.round(Math.abs(ms) / 1000);
  const hours = Math.floor(seconds / 3600);
  seconds -= hours * 3600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  const parts = [];
  if (hours > 0) parts.push(`${hours} h`);
  if (minutes > 0) parts.push(`${minutes} min`);
  if (seconds > 0 || parts.length === 0) parts.push(`${seconds} s`);
  return parts.join(" ");
}

/** "+05:30", "-04:00", "+00:00". */
function utcOffset(ms: number): string {
  const minutes = Math.abs(ms) / 60_000;
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${ms < 0 ? "-" : "+"}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/** A 400 for an identity field that is missing, empty or unreadable. */
function unidentified(
  field: string,
  read: null | Unreadable,
  value: unknown,
  what: string,
): ParseResult {
  const detail =
    read instanceof Unreadable
      ? read.message
      : value === undefined
        ? "it is required but missing"
        : "it is empty";
  return invalidField(
    what === DELIVERY ? "delivery" : "call",
    field,
    `Field "${field}" of the ${what} is unusable: ${detail}. It identifies the report, so the report cannot be taken without it.`,
  );
}

function unidentifiedCall(p: Payload): ParseResult {
  const field = p.mid === undefined && p.webhook_id !== undefined ? "webhook_id" : "mid";
  const detail = (key: string) => {
    const read = readIdentity(p[key]);
    return p[key] === undefined ? "missing" : read instanceof Unreadable ? read.message : "empty";
  };
  return invalidField(
    "call",
    field,
    `The call report has no usable "mid" (${detail("mid")}) nor "webhook_id" (${detail("webhook_id")}): one of them identifies the call, so the report cannot be taken without it.`,
  );
}

function invalidField(kind: Kind, field: string, message: string): ParseResult {
  return { ok: false, error: invalidReport(field, message), kind };
}

function unrecognized(message: string): ParseResult {
  return { ok: false, error: unrecognizedReport(message) };
}
