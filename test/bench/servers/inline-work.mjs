// reportkit's work for the two headline reports, written inline with nothing around it: the
// floor any receiver doing that work could reach. A constant-time bearer check, JSON.parse,
// the identity checks, every field normalized as reportkit gives it (phones and counts as
// digits and numbers, the dates read as wall-clock times at +05:30, the provider's zone), a
// report object, its dedupe key claimed and completed in a two-generation Map, then the reply.
// Only the provider's usual forms are read: anything else is refused, where reportkit would
// read it, so this is a floor, not a receiver.
import { countHandled, token } from "./common.mjs";

const expected = `Bearer ${token}`;

/** Constant-time for a credential of the expected length. */
function authorized(header) {
  if (typeof header !== "string" || header.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < header.length; i++) diff |= header.charCodeAt(i) ^ expected.charCodeAt(i);
  return diff === 0;
}

const IST_MS = 19_800_000;
const twoDigits = (s, i) => (s.charCodeAt(i) - 48) * 10 + s.charCodeAt(i + 1) - 48;

/** "yyyy-mm-dd hh:mm:ss" at +05:30; null for anything else. */
function wallClock(s) {
  if (typeof s !== "string" || s.length !== 19) return null;
  const year = twoDigits(s, 0) * 100 + twoDigits(s, 2);
  const utc = Date.UTC(
    year,
    twoDigits(s, 5) - 1,
    twoDigits(s, 8),
    twoDigits(s, 11),
    twoDigits(s, 14),
    twoDigits(s, 17),
  );
  return new Date(utc - IST_MS);
}

const text = (v) =>
  typeof v === "string" ? (v === "" ? null : v) : typeof v === "number" ? String(v) : null;
const count = (v) => (typeof v === "number" ? v : typeof v === "string" ? Number(v) : null);

let current = new Map();
let previous = new Map();
const GENERATION = 50_000;
const LEASE_MS = 60_000;
const TTL_MS = 7_200_000;

/** Claims a key unless it is held or done: false for a duplicate. */
function claim(key, now) {
  const until = current.get(key) ?? previous.get(key);
  if (until !== undefined && until > now) return false;
  if (current.size >= GENERATION) {
    previous = current;
    current = new Map();
  }
  current.set(key, now + LEASE_MS);
  return true;
}

function delivery(p) {
  const id = text(p.id);
  const status = text(p.status);
  if (id === null || status === null) return undefined;
  return {
    type: "delivery",
    id,
    mobile: text(p.mobile),
    status,
    credits: text(p.credits),
    units: count(p.units),
    deliveredAt: wallClock(p.deliv_time),
    sentAt: wallClock(p.sent_time),
    submittedAt: wallClock(p.submit_time),
    cid: text(p.cid),
    custom: text(p.custom),
    warnings: [],
    raw: p,
  };
}

function call(p) {
  const mid = text(p.mid);
  const status = text(p.status);
  if (mid === null || status === null) return undefined;
  return {
    type: "call",
    webhookId: text(p.webhook_id),
    mid,
    bridge: text(p.bridge),
    from: text(p.from),
    to: text(p.to),
    startedAt: wallClock(p.start_at),
    endedAt: wallClock(p.end_at),
    duration: count(p.duration),
    flowId: count(p.flow_id),
    status,
    source: text(p.source),
    recordingUrl: text(p.recording_url),
    warnings: [],
    raw: p,
  };
}

/** The status code for one request: 200, 400 or 401. */
export function inlineWork(body, authorization) {
  if (!authorized(authorization)) return 401;
  let payload;
  try {
    payload = JSON.parse(body);
  } catch {
    return 400;
  }
  if (typeof payload !== "object" || payload === null) return 400;
  const report = payload.mobile !== undefined ? delivery(payload) : call(payload);
  if (report === undefined) return 400;
  const key =
    report.type === "delivery"
      ? `delivery:${report.id}:${report.status}`
      : `call:${report.mid}:${report.to ?? ""}:${report.status}:${report.startedAt?.getTime() ?? ""}`;
  const now = Date.now();
  if (!claim(key, now)) return 200;
  countHandled(report);
  current.set(key, now + TTL_MS);
  return 200;
}

export const replyBody = (status) => (status === 200 ? '{"ok":true}' : '{"ok":false}');
