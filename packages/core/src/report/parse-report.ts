// A pushed body to a report: its kind by its shape (every documented body is exactly one), then
// each field by wire's field table. Refused only when it cannot be identified; any other value
// that cannot be read becomes null with a warning, `raw` keeping it as sent (bounded in depth).
import {
  CALL_FIELD_TABLE,
  CONTACT_EVENT,
  classifyCallStatus,
  classifyDeliveryStatus,
  DELIVERY_FIELD_TABLE,
  type FieldRow,
  LINK_VISIT_EVENT,
  PROVIDER_TIME_ZONE,
  type ReportKind,
  recordingExpiry,
  type StatusClass,
  UNSUBSCRIBE_FIELD_TABLE,
} from "@reportkit/wire";
import { isRecord } from "@reportkit/wire/internal";
import { invalidReport, type ReportError, unrecognizedReport } from "../reply/errors.js";
import {
  carriesZone,
  describe,
  quote,
  type Read,
  readCount,
  readDecimal,
  readIdentity,
  readPhone,
  readText,
  readTimestamp,
  readUnixTime,
  Unreadable,
  unixInstant,
  type WallClockReader,
  wallClockReader,
} from "./read-value.js";
import type { Report, ReportWarning } from "./schemas.js";

export type ParseResult =
  | { ok: true; report: Report }
  /** `kind`: what the payload was recognised as, when it was (an unusable id, say). */
  | { ok: false; error: ReportError; kind?: ReportKind };

export interface ParseOptions {
  /** IANA zone of wall-clock strings without one. Default "Asia/Kolkata", the provider's. */
  timeZone?: string;
}

type Payload = Record<string, unknown>;
type Fielded = "delivery" | "call" | "unsubscribe";

/**
 * Reads one pushed body: an SMS delivery report, a call report, an opt-out, an event. Never throws.
 *
 * @example
 * const result = parseReport(JSON.parse(body));
 * if (result.ok && result.report.type === "delivery") console.log(result.report.deliveredAt);
 * if (result.ok) for (const w of result.report.warnings) console.warn(w.field, w.message);
 */
export function parseReport(payload: unknown, options?: ParseOptions): ParseResult {
  return parseWith(payload, wallClockReader(options?.timeZone ?? PROVIDER_TIME_ZONE));
}

/** parseReport with the zone resolved; `composed`: a composed template's payload, of that kind. */
export function parseWith(
  payload: unknown,
  readWallClock: WallClockReader,
  composed?: "delivery" | "call",
): ParseResult {
  if (composed !== undefined) return fielded(composed, payload as Payload, readWallClock);
  if (!isRecord(payload)) {
    return unrecognized(
      `The body is ${describe(payload)}, not a report. Send a JSON object: an SMS delivery report, a call report, an opt-out or an {"event", "payload"} envelope.`,
    );
  }
  const shape = shapeOf(payload);
  if (shape === undefined) {
    return unrecognized(
      `The body is an object with none of the fields that tell its kind: an SMS delivery report has "mobile" (or "credits", "deliv_time", …) beside "id" and "status"; a call report "from", "to", "bridge" or "mid"; an opt-out "receiver"; an event "event" and "payload".`,
    );
  }
  if (shape.kind === "event") return event(shape.event, shape.payload, payload);
  return fielded(shape.kind, shape.payload, readWallClock);
}

// ---- Which kind of body ------------------------------------------------------------------

/** Wire fields only one kind carries: `id` and `status` are everybody's. */
const DELIVERY_ONLY = onlyIn(DELIVERY_FIELD_TABLE);
const CALL_ONLY = onlyIn(CALL_FIELD_TABLE);

function onlyIn(table: Readonly<Record<string, FieldRow>>): ReadonlySet<string> {
  return new Set(Object.keys(table).filter((key) => key !== "id" && key !== "status"));
}

/** The provider's events whose payload is a report of its own kind (v2/event/index.md). */
const EVENT_KINDS: Readonly<Record<string, Fielded>> = {
  "sms:message:status": "delivery",
  "voice:message:out": "call",
};

type Shape =
  | { kind: Fielded; payload: Payload }
  | { kind: "event"; event: string; payload: Payload };

/** The kind a body's shape says, in an order that makes every documented body one kind. */
function shapeOf(p: Payload): Shape | undefined {
  if (typeof p.event === "string" && p.event !== "" && isRecord(p.payload)) {
    const { event, payload } = p;
    // Own keys only: an event named "toString" is an event, not Object.prototype's.
    const own = Object.hasOwn(EVENT_KINDS, event) ? EVENT_KINDS[event] : undefined;
    const kind = event.endsWith(":unsubscription") ? "unsubscribe" : own;
    return kind === undefined ? { kind: "event", event, payload } : { kind, payload };
  }
  if (p.receiver !== undefined) return { kind: "unsubscribe", payload: p };
  if (p.link_id !== undefined) return { kind: "event", event: LINK_VISIT_EVENT, payload: p };
  if (p.identity !== undefined) return { kind: "event", event: CONTACT_EVENT, payload: p };
  if (p.mobile !== undefined) return { kind: "delivery", payload: p };
  let delivery = false;
  for (const key in p) {
    if (CALL_ONLY.has(key)) return { kind: "call", payload: p };
    if (DELIVERY_ONLY.has(key)) delivery = true;
  }
  return delivery ? { kind: "delivery", payload: p } : undefined;
}

// ---- Each field by its table -------------------------------------------------------------

/** A report field and how to read it: a time reads a unix field and its wall-clock twin. */
type TimeSpec = { readonly field: string; read: "time"; unix?: string; wall?: string };
type Spec =
  | TimeSpec
  | {
      readonly field: string;
      readonly read: Exclude<FieldRow["read"], "unixTime" | "wallClock">;
      readonly wire: string;
      readonly required: boolean;
    };

function specsOf(table: Readonly<Record<string, FieldRow>>): readonly Spec[] {
  const specs: Spec[] = [];
  for (const [wire, row] of Object.entries(table)) {
    if (row.read !== "unixTime" && row.read !== "wallClock") {
      specs.push({ field: row.field, read: row.read, wire, required: "required" in row });
      continue;
    }
    let time = specs.find((spec): spec is TimeSpec => spec.field === row.field);
    if (time === undefined) {
      time = { field: row.field, read: "time" };
      specs.push(time);
    }
    time[row.read === "unixTime" ? "unix" : "wall"] = wire;
  }
  return specs;
}

const SPECS = {
  delivery: specsOf(DELIVERY_FIELD_TABLE),
  call: specsOf(CALL_FIELD_TABLE),
  unsubscribe: specsOf(UNSUBSCRIBE_FIELD_TABLE),
};

// Each kind's report, every key null in the order written: a report starts as a copy, so V8 fills
// one shape per kind instead of adding 20 properties one by one (a DLR's parse: 1.3 µs to 0.4).
/** What a report takes from its status's class, by kind (a call has no reason). */
const FROM_STATUS = {
  delivery: ["final", "outcome", "reason", "transient"],
  call: ["final", "outcome", "transient"],
  unsubscribe: [],
} as const satisfies Record<Fielded, readonly (keyof StatusClass<string>)[]>;

const SHAPES = {
  delivery: shapeKeys("delivery", FROM_STATUS.delivery),
  call: shapeKeys("call", [...FROM_STATUS.call, "recordingExpiresAt"]),
  unsubscribe: shapeKeys("unsubscribe", FROM_STATUS.unsubscribe),
};

function shapeKeys(kind: Fielded, derived: readonly string[]): Readonly<Record<string, unknown>> {
  const keys = [...SPECS[kind].map((spec) => spec.field), ...derived, "warnings", "raw"];
  return { type: kind, ...Object.fromEntries(keys.map((key) => [key, null])) };
}

export const KIND_NAMES: Readonly<Record<Fielded, string>> = {
  delivery: "SMS delivery report",
  call: "call report",
  unsubscribe: "opt-out",
};

// A Click2Call to an IVR flow: `"to": "flow:220"` is no number.
const FLOW = /^\s*flow:\s*(\d+)\s*$/i;

function fielded(kind: Fielded, p: Payload, readWallClock: WallClockReader): ParseResult {
  // A fresh array per report: handlers may add their own. Entries only when a value fails.
  const warnings: ReportWarning[] = [];
  const report: Record<string, unknown> = { ...SHAPES[kind] };
  let status: StatusClass<string> | undefined;
  let flow: number | undefined;
  for (const spec of SPECS[kind]) {
    if (spec.read === "time") {
      report[spec.field] = time(spec, p, readWallClock, warnings);
      continue;
    }
    const value = p[spec.wire];
    const flowTo = kind === "call" && spec.wire === "to" && typeof value === "string";
    const flowId = flowTo ? FLOW.exec(value)?.[1] : undefined;
    if (flowId !== undefined) {
      report.to = null;
      flow = Number(flowId);
      continue;
    }
    const read = READERS[spec.read](value, readWallClock);
    if (typeof read !== "string" && spec.required) {
      const detail = unusable(value, "it is required but missing", "it is empty");
      return refused(
        kind,
        spec.wire,
        `Field "${spec.wire}" of the ${KIND_NAMES[kind]} is unusable: ${detail}. It identifies the report, so the report cannot be taken without it.`,
      );
    }
    report[spec.field] = warn(read, spec.wire, warnings);
    if (spec.read === "status" && typeof read === "string") {
      status = classified(kind, read, warnings);
    }
  }
  // The flow a Click2Call went to, where no flow_id says otherwise.
  if (flow !== undefined && report.flowId === null) report.flowId = flow;
  const { mid, webhookId, bridge, from, to } = report;
  if (kind === "call" && [mid, webhookId, bridge, from, to].every((value) => value === null)) {
    return refused(
      "call",
      p.mid === undefined && p.webhook_id !== undefined ? "webhook_id" : "mid",
      `The call report has no usable "mid" (${unusable(p.mid)}) nor "webhook_id" (${unusable(p.webhook_id)}), and none of "bridge", "from" and "to": nothing identifies the call, so the report cannot be taken.`,
    );
  }
  if (status !== undefined) for (const key of FROM_STATUS[kind]) report[key] = status[key];
  if (kind === "call") {
    const url = report.recordingUrl as string | null;
    const base = (report.reportedAt ?? report.endedAt ?? report.startedAt) as Date | null;
    // An empty recording_url is no recording.
    report.recordingExpiresAt = url ? (recordingExpiry(url, base)?.expiresAt ?? null) : null;
  }
  report.warnings = warnings;
  report.raw = boundedRaw(p, warnings);
  return { ok: true, report: report as Report };
}

const READERS = {
  identity: readIdentity,
  status: readIdentity,
  phone: readPhone,
  text: readText,
  count: readCount,
  decimal: readDecimal,
  /** ISO 8601 with its zone, or a wall-clock time in the zone. */
  timestamp(value: unknown, readWallClock: WallClockReader): Read<Date> {
    const read = readTimestamp(value);
    if (!(read instanceof Unreadable) || typeof value !== "string") return read;
    return readWallClock(value) ?? read;
  },
} satisfies Record<string, (value: unknown, readWallClock: WallClockReader) => Read<unknown>>;

/** The status's class; a warning when the status table does not know it (it is taken all the same). */
function classified(kind: Fielded, status: string, warnings: ReportWarning[]): StatusClass<string> {
  const found = kind === "call" ? classifyCallStatus(status) : classifyDeliveryStatus(status);
  if (!found.known) {
    warnings.push({
      field: "status",
      message: `${quote(status)} is not a status of the ${KIND_NAMES[kind]} that reportkit knows; taken as sent, as not final with outcome "unknown"`,
    });
  }
  return found;
}

// ---- Events: the envelope typed, the payload as sent -------------------------------------

function event(name: string, payload: Payload, body: Payload): ParseResult {
  const warnings: ReportWarning[] = [];
  const kept = boundedRaw(payload, warnings);
  const raw = payload === body ? kept : boundedRaw({ ...body, payload: kept }, warnings);
  return {
    ok: true,
    report: {
      type: "event",
      event: name,
      id: warn(readIdentity(kept.id), "id", warnings),
      status: warn(readIdentity(kept.status), "status", warnings),
      payload: kept,
      warnings,
      raw,
    },
  };
}

// ---- Values ------------------------------------------------------------------------------

function warn<T>(read: Read<T>, field: string, warnings: ReportWarning[]): T | null {
  if (!(read instanceof Unreadable)) return read;
  warnings.push({ field, message: `${read.message}; set to null, the value is kept in raw` });
  return null;
}

/** The instant of a unix field (the authority) and its wall-clock twin, held against each other. */
function time(
  { unix, wall: twin }: TimeSpec,
  p: Payload,
  readWallClock: WallClockReader,
  warnings: ReportWarning[],
): Date | null {
  const unixValue = unix === undefined ? undefined : p[unix];
  const twinValue = twin === undefined ? undefined : p[twin];
  const exact =
    unixValue === undefined ? null : warn(readUnixTime(unixValue), unix as string, warnings);
  if (twinValue === undefined) return exact;
  const wall = warn(readWallClockValue(twinValue, readWallClock), twin as string, warnings);
  if (exact === null || wall === null) return exact ?? wall;
  if (Math.floor(wall.getTime() / 1000) === Math.floor(exact.getTime() / 1000)) return exact;
  const off = span(wall.getTime() - exact.getTime());
  let message = `${twin} ${quote(twinValue)} is ${off} off ${unix}`;
  const naive =
    typeof twinValue === "string" && !carriesZone(twinValue)
      ? wallClockReader("UTC")(twinValue)
      : undefined;
  if (naive instanceof Date) {
    const implied = naive.getTime() - exact.getTime();
    message += ` in ${readWallClock.timeZone}: ${
      implied % 900_000 === 0 && Math.abs(implied) <= 14 * 3_600_000
        ? `the pair implies UTC${utcOffset(implied)}`
        : "no time zone explains the pair"
    }`;
  }
  warnings.push({ field: twin as string, message: `${message}; ${unix} is used` });
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

/** "5 h 30 min", "3 s": a difference as people read it. */
function span(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  const parts = [`${Math.floor(s / 3600)} h`, `${Math.floor(s / 60) % 60} min`, `${s % 60} s`];
  return parts.filter((part) => !part.startsWith("0 ")).join(" ") || "0 s";
}

/** "+05:30", "-04:00", "+00:00". */
function utcOffset(ms: number): string {
  const minutes = Math.abs(ms) / 60_000;
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${ms < 0 ? "-" : "+"}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

// ---- Raw, bounded -----------------------------------------------------------------------

// How deep `report.raw` may nest: far beyond any real payload, far below where JSON.stringify or
// a queue's serialiser run out of stack (a 64 KB body holds 32,000 nested arrays).
const MAX_RAW_DEPTH = 64;

/** `raw` without fields nested past MAX_RAW_DEPTH (a warning each): every report serialises. */
export function boundedRaw(
  raw: Record<string, unknown>,
  warnings: ReportWarning[],
): Record<string, unknown> {
  let kept: Record<string, unknown> | undefined;
  for (const key of Object.keys(raw)) {
    const value = raw[key];
    if (typeof value !== "object" || value === null || withinDepth(value, MAX_RAW_DEPTH)) continue;
    // A spread copies a "__proto__" own key as an own data property, as JSON.parse made it.
    kept ??= { ...raw };
    delete kept[key];
    warnings.push({
      field: key,
      message: `nested deeper than ${MAX_RAW_DEPTH} levels; dropped from raw so that the report can be serialised`,
    });
  }
  return kept ?? raw;
}

/** Whether `value` (at the first level) nests at most `levels` levels. Recursion ≤ `levels`. */
function withinDepth(value: object, levels: number): boolean {
  if (levels <= 0) return false;
  return Object.values(value).every(
    (item) => typeof item !== "object" || item === null || withinDepth(item, levels - 1),
  );
}

// ---- Refusals ----------------------------------------------------------------------------

/** Why an identity value cannot be used: what its reader says, or that it is missing or empty. */
function unusable(value: unknown, missing = "missing", empty = "empty"): string {
  const read = readIdentity(value);
  return read instanceof Unreadable ? read.message : value === undefined ? missing : empty;
}

function refused(kind: Fielded, field: string, message: string): ParseResult {
  return { ok: false, kind, error: invalidReport(field, message) };
}

function unrecognized(message: string): ParseResult {
  return { ok: false, error: unrecognizedReport(message) };
}
