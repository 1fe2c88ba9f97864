import type { Report } from "./schemas.js";
import { sha256Hex } from "./sha256.js";

/**
 * A report's identity, for deduplication and as the queue's job id: a delivery report by its
 * message id and status (the same message reports DELIVRD once, but may report ENROUTE, then
 * DELIVRD); a call report by its campaign message id, callee, status and start time. The
 * callee is in it as `calleeHash` of the number, never the number: a key is in log lines,
 * journal entries, Redis key names and the CLI's tables. A call report without `mid` has no
 * identity (composed templates may leave it out): undefined, so it is not deduplicated unless
 * the `dedupeKey` option gives a key.
 *
 * @example
 * defaultDedupeKey(report); // "delivery:b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1:DELIVRD"
 * // a call: "call:<mid>:<16 hex digits of the callee's SHA-256>:ANSWER:1617965871000"
 */
export function defaultDedupeKey(report: Report): string | undefined {
  if (report.type === "delivery") return `delivery:${report.id}:${report.status}`;
  if (report.mid === null) return undefined;
  const start = report.startedAt === null ? "" : String(report.startedAt.getTime());
  const callee = report.to === null ? "" : calleeHash(report.to);
  return `call:${report.mid}:${callee}:${report.status}:${start}`;
}

/**
 * How a call report's key names its callee: the first 16 hex digits (64 bits) of the SHA-256
 * of the number as the report carries it. The same in SQL:
 * `left(encode(sha256(convert_to('919876543210', 'UTF8')), 'hex'), 16)`. A hash, not a
 * secret: it keeps the number out of logs and key names, but anyone may hash every number.
 */
export function calleeHash(number: string): string {
  return sha256Hex(number).slice(0, 16);
}
