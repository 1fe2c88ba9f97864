import { randomInt, randomUUID } from "node:crypto";
import type {
  DocumentedCallPayload,
  DocumentedClick2CallPayload,
  DocumentedDeliveryPayload,
} from "@reportkit/wire";
import {
  checkAt,
  checkPhone,
  checkSeconds,
  checkStatus,
  checkText,
  FieldCheck,
} from "./field-errors.js";
import { formatWallClock, unixSeconds } from "./format-wall-clock.js";
import { locationOf } from "./number-location.js";

/**
 * The SMS delivery report the sandbox pushes (provider-interface.md 2.4), one of the shapes the
 * wire's DeliveryPayload allows. The unix fields are only in "complete" payloads (the
 * documentation's sample has none), and `deliv_time` only on a delivered message (DELIVRD) in
 * "documented" ones.
 */
export interface SandboxDeliveryPayload extends DocumentedDeliveryPayload {
  deliv_at?: string;
  sent_at?: string;
  submit_at?: string;
}

/**
 * The call report the sandbox pushes (provider-interface.md 2.5), one of the shapes the wire's
 * CallPayload allows. `webhook_id` is only in "complete" payloads: the documentation's sample
 * has none.
 */
export interface SandboxCallPayload extends DocumentedCallPayload {
  webhook_id?: string;
}

/**
 * The Click2Call report the sandbox pushes (`v2/voice/c2c.md`), one of the shapes the wire's
 * CallPayload allows. `webhook_id` is only in "complete" payloads (the page's callback variables
 * list it, its sample has none), `mid` only when the call request gave one.
 */
export interface SandboxClick2CallPayload extends DocumentedClick2CallPayload {
  webhook_id?: string;
}

/**
 * The shape of the reports pushed. "documented": as the provider's documentation samples show
 * them (field-notes.md): no unix fields in a delivery report, no delivery time on a message
 * that was not delivered, no `webhook_id` in a call report, and a body written like the
 * samples, one field a line with a trailing comma before the closing brace. "complete": every
 * field of provider-interface.md 2.4 / 2.5 always, as strict JSON.
 */
export type PayloadStyle = "documented" | "complete";

export const PAYLOAD_STYLES: readonly PayloadStyle[] = ["documented", "complete"];

/** What a simulated SMS may override; everything else is made up realistically. */
export interface DeliveryOverrides {
  /** Mobile number with country code, digits only. Default 919876543210. */
  mobile?: string;
  /** Default "DELIVRD". Any other value (UNDELIV, EXPIRED, ...) is pushed as is. */
  status?: string;
  /** The client's custom id. Omitted from the report when not given. */
  custom?: string;
  /** Two more values of the client's own. Each omitted from the report when not given. */
  custom1?: string;
  custom2?: string;
  /** Credits charged, sent with four decimals. Default 0.25 per unit. */
  credits?: string | number;
  /** SMS parts. Default from `message` (160 characters, then 153 a part), else 1. */
  units?: number;
  cid?: string;
  /** Only used to count the parts. */
  message?: string;
  /** When the report says the message was delivered (its receipt's time). Default now. */
  at?: Date;
  /** Seconds from its submission to the operator to that receipt. Default 2. */
  deliverySeconds?: number;
}

/** What a simulated call may override. */
export interface CallOverrides {
  /** Default 919876543210. Digits, sent as a JSON number like the provider does. */
  to?: string | number;
  /** Default 918068281235. */
  from?: string | number;
  /** The DID that initiated the call. Default 918068281234. */
  bridge?: string | number;
  /** Default "ANSWER". Any other value (BUSY, NOANSWER, ...) is pushed as is. */
  status?: string;
  /** Seconds. Default 23 for ANSWER, else 0. */
  duration?: number;
  flowId?: number;
  /** Default "OBD". */
  source?: string;
  /** Default a made-up recording for an answered call; null leaves it out. */
  recordingUrl?: string | null;
  /** The campaign's message id. Default a new UUID. */
  mid?: string;
  /** When the call ended. Default now. */
  at?: Date;
}

/** What a simulated Click2Call may override. */
export interface Click2CallOverrides {
  /** Called first (the agent). Default 918068281235. */
  from?: string | number;
  /** Connected to second: digits (default 919876543210), or an IVR flow, "flow:220". */
  to?: string | number;
  /** The DID that placed the call. Default 918068281234. */
  bridge?: string | number;
  /** The second leg's status. Default "ANSWER". */
  status2?: string;
  /** The first leg's status. Default "RECEIVED", as the page's sample. */
  status1?: string;
  /** The call's status. Default "COMPLETED" when the second leg answered, else its status. */
  status?: string;
  /** Seconds of the first call. Default 23. */
  duration?: number;
  /** Seconds of the second call, the one billed. Default 23 when it answered, else 0. */
  billing?: number;
  /** "caller" (default) or "agent". */
  hangupBy?: string;
  /** The call request's `mid`: in the report only when given. */
  mid?: string;
  /** Default a made-up recording for a completed call; null leaves it out. */
  recordingUrl?: string | null;
  /** When the call ended (and the report was made). Default now. */
  at?: Date;
}

export interface ReportClock {
  now: Date;
  /** The zone the wall-clock fields are written in. */
  timeZone: string;
}

const DIGITS = /^\d+$/;

/**
 * A realistic SMS delivery report: id "<uuid>:1", credits with four decimals, unix and
 * wall-clock times for the same instants (received 3 s, submitted 2 s before delivery now),
 * and for an Indian number where it is registered (`location`, `region`, `provider`, codes).
 * @throws FieldErrors naming each invalid override
 */
export function buildDeliveryReport(
  overrides: DeliveryOverrides,
  clock: ReportClock,
): SandboxDeliveryPayload {
  const check = new FieldCheck();
  const mobile = overrides.mobile === undefined ? "919876543210" : String(overrides.mobile);
  if (!/^\d{8,15}$/.test(mobile)) {
    check.add("mobile", "The mobile field must be 8 to 15 digits (country code included).");
  }
  const status = checkStatus(check, overrides.status, "DELIVRD");
  if (overrides.message !== undefined && typeof overrides.message !== "string") {
    check.add("message", "The message field must be a string.");
  }
  let units: unknown = overrides.units ?? partsOf(overrides.message);
  if (typeof units === "string" && DIGITS.test(units)) units = Number(units);
  const validUnits =
    typeof units === "number" && Number.isSafeInteger(units) && units >= 1 && units <= 255;
  if (!validUnits) check.add("units", "The units field must be an integer between 1 and 255.");
  let credits = validUnits ? (units as number) * 0.25 : 0;
  if (overrides.credits !== undefined) {
    const given = overrides.credits;
    credits = Number(given);
    const readable =
      typeof given === "number" ||
      (typeof given === "string" && /^\d+(\.\d+)?$/.test(given.trim()));
    if (!readable || !Number.isFinite(credits) || credits < 0) {
      check.add("credits", "The credits field must be a number of at least 0.");
    }
  }
  const at = checkAt(check, overrides.at, clock.now);
  const deliverySeconds = checkSeconds(check, "delivery_seconds", overrides.deliverySeconds, 2);
  const custom = checkText(check, "custom", overrides.custom, 255);
  const custom1 = checkText(check, "custom1", overrides.custom1, 255);
  const custom2 = checkText(check, "custom2", overrides.custom2, 255);
  const cid = checkText(check, "cid", overrides.cid, 64) ?? String(randomInt(1000, 1_000_000));
  check.done();

  const delivered = unixSeconds(at);
  const submitted = delivered - deliverySeconds;
  const sent = submitted - 1;
  const wallClock = (seconds: number) => formatWallClock(new Date(seconds * 1000), clock.timeZone);
  const report: SandboxDeliveryPayload = {
    id: `${randomUUID()}:1`,
    mobile,
    status,
    credits: credits.toFixed(4),
    units: units as number,
    deliv_at: String(delivered),
    sent_at: String(sent),
    submit_at: String(submitted),
    deliv_time: wallClock(delivered),
    sent_time: wallClock(sent),
    submit_time: wallClock(submitted),
    cid,
  };
  if (custom !== undefined) report.custom = custom;
  if (custom1 !== undefined) report.custom1 = custom1;
  if (custom2 !== undefined) report.custom2 = custom2;
  // After the client's values, as in the verification page's sample.
  const location = locationOf(mobile);
  if (location !== undefined) Object.assign(report, location);
  return report;
}

/** Whether a delivery status says the message reached the handset (SMPP stat DELIVRD). */
export function isDelivered(status: string): boolean {
  return status.toUpperCase() === "DELIVRD";
}

/**
 * The delivery report as the documentation shows it: the complete report without its unix
 * fields, and without a delivery time unless the message was delivered.
 */
export function documentedDelivery(report: SandboxDeliveryPayload): SandboxDeliveryPayload {
  const { deliv_at: _d, sent_at: _s, submit_at: _u, ...documented } = withoutDeliveryTime(report);
  return documented;
}

/** The report without `deliv_time`/`deliv_at` unless the message was delivered. */
export function withoutDeliveryTime(report: SandboxDeliveryPayload): SandboxDeliveryPayload {
  if (isDelivered(report.status)) return report;
  const { deliv_time: _t, deliv_at: _a, ...rest } = report;
  return rest;
}

/** A call report (OBD or Click2Call) as the documentation shows it: no `webhook_id`. */
export function documentedCall<R extends { webhook_id?: string }>(report: R): R {
  const { webhook_id: _, ...documented } = report;
  return documented as R;
}

/**
 * A realistic call report: phone numbers as JSON numbers, duration as a digit string, a
 * numeric flow_id, and start/end wall-clock times that differ by the duration and end now.
 * @throws FieldErrors naming each invalid override
 */
export function buildCallReport(
  webhookId: string,
  overrides: CallOverrides,
  clock: ReportClock,
): SandboxCallPayload {
  const check = new FieldCheck();
  const to = checkPhone(check, "to", overrides.to, 919876543210);
  const from = checkPhone(check, "from", overrides.from, 918068281235);
  const bridge = checkPhone(check, "bridge", overrides.bridge, 918068281234);
  const status = checkStatus(check, overrides.status, "ANSWER");
  let duration: unknown = overrides.duration ?? (status === "ANSWER" ? 23 : 0);
  if (typeof duration === "string" && DIGITS.test(duration)) duration = Number(duration);
  if (typeof duration !== "number" || !Number.isSafeInteger(duration) || duration < 0) {
    check.add("duration", "The duration field must be a whole number of seconds.");
  }
  let flowId: unknown = overrides.flowId ?? 4521;
  if (typeof flowId === "string" && DIGITS.test(flowId)) flowId = Number(flowId);
  if (typeof flowId !== "number" || !Number.isSafeInteger(flowId) || flowId < 0) {
    check.add("flow_id", "The flow_id field must be a whole number.");
  }
  const source = checkText(check, "source", overrides.source, 32) ?? "OBD";
  const mid = checkText(check, "mid", overrides.mid, 64) ?? randomUUID();
  const endedAt = checkAt(check, overrides.at, clock.now);
  let recordingUrl: string | undefined;
  if (overrides.recordingUrl === undefined) {
    if (status === "ANSWER") recordingUrl = `https://recordings.example.com/${mid}.mp3`;
  } else if (overrides.recordingUrl !== null) {
    recordingUrl = checkText(check, "recording_url", overrides.recordingUrl, 2048);
  }
  check.done();

  const seconds = duration as number;
  const ended = unixSeconds(endedAt);
  const started = ended - seconds;
  const at = (s: number) => formatWallClock(new Date(s * 1000), clock.timeZone);
  const report: SandboxCallPayload = {
    webhook_id: webhookId,
    bridge,
    from,
    to,
    start_at: at(started),
    end_at: at(ended),
    duration: String(seconds),
    mid,
    flow_id: flowId as number,
    status,
    source,
  };
  if (recordingUrl !== undefined) report.recording_url = recordingUrl;
  return report;
}

/**
 * A realistic Click2Call report, as `v2/voice/c2c.md` shows it: phone numbers as JSON numbers (a
 * flow as "flow:<id>"), start and end wall-clock `duration` seconds apart and ending now, the
 * report's own time (`date`, `unixtime`) now, `duration` and `billing` digit strings.
 * @throws FieldErrors naming each invalid override
 */
export function buildClick2CallReport(
  webhookId: string,
  overrides: Click2CallOverrides,
  clock: ReportClock,
): SandboxClick2CallPayload {
  const check = new FieldCheck();
  const from = checkPhone(check, "from", overrides.from, 918068281235);
  const flow = typeof overrides.to === "string" && /^flow:\d{1,10}$/.test(overrides.to);
  const to = flow ? (overrides.to as string) : checkPhone(check, "to", overrides.to, 919876543210);
  const bridge = checkPhone(check, "bridge", overrides.bridge, 918068281234);
  const status2 = checkStatus(check, overrides.status2, "ANSWER", "status2");
  const status1 = checkStatus(check, overrides.status1, "RECEIVED", "status1");
  const answered = status2 === "ANSWER";
  const status = checkStatus(check, overrides.status, answered ? "COMPLETED" : status2);
  const duration = checkSeconds(check, "duration", overrides.duration, 23);
  const billing = checkSeconds(check, "billing", overrides.billing, answered ? 23 : 0);
  const hangupBy = overrides.hangupBy ?? "caller";
  if (hangupBy !== "caller" && hangupBy !== "agent") {
    check.add("hangup_by", "The hangup by field must be caller or agent.");
  }
  const mid = checkText(check, "mid", overrides.mid, 64);
  const endedAt = checkAt(check, overrides.at, clock.now);
  let recordingUrl: string | undefined;
  if (overrides.recordingUrl === undefined) {
    if (status === "COMPLETED") recordingUrl = `https://recordings.example.com/${randomUUID()}.mp3`;
  } else if (overrides.recordingUrl !== null) {
    recordingUrl = checkText(check, "recording_url", overrides.recordingUrl, 2048);
  }
  check.done();

  const ended = unixSeconds(endedAt);
  const at = (s: number) => formatWallClock(new Date(s * 1000), clock.timeZone);
  // In the order of the page's sample; webhook_id first, as its callback variables list it.
  const report: SandboxClick2CallPayload = {
    webhook_id: webhookId,
    bridge,
    from,
    to,
    source: "C2C",
    start_at: at(ended - duration),
    end_at: at(ended),
    date: at(ended),
    unixtime: String(ended),
    duration: String(duration),
    billing: String(billing),
    status,
    status1,
    status2,
    ...(recordingUrl !== undefined && { recording_url: recordingUrl }),
    hangup_by: hangupBy,
    ...(mid !== undefined && { mid }),
  };
  return report;
}

function partsOf(message: string | undefined): number {
  if (typeof message !== "string" || message.length <= 160) return 1;
  return Math.ceil(message.length / 153);
}
