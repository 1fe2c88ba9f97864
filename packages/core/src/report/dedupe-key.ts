import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { Report } from "./schemas.js";

/**
 * A report's identity, for deduplication and as the queue's job id: a delivery report's id and
 * status; a call's mid, callee, status and start (a Click2Call's numbers, status and time); an
 * opt-out's id; an event's name, id and status. Numbers only as their `calleeHash` (keys are in
 * logs). Undefined for a report with nothing stable to tell it by.
 *
 * @example
 * defaultDedupeKey(report); // "delivery:b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1:DELIVRD"
 * // an OBD call: "call:<mid>:<16 hex digits of the callee's SHA-256>:ANSWER:1617965871000"
 * // a Click2Call: "call::<16 hex digits of the SHA-256 of "bridge|from|to">:COMPLETED:1617965859000"
 */
export function defaultDedupeKey(report: Report): string | undefined {
  switch (report.type) {
    case "delivery":
      return `delivery:${report.id}:${report.status}`;
    case "unsubscribe":
      return `unsubscribe:${report.id}`;
    case "event":
      return report.id === null
        ? undefined
        : `event:${report.event}:${report.id}:${report.status ?? ""}`;
    case "call": {
      if (report.mid !== null) {
        const start = report.startedAt === null ? "" : String(report.startedAt.getTime());
        const callee = report.to === null ? "" : calleeHash(report.to);
        return `call:${report.mid}:${callee}:${report.status}:${start}`;
      }
      const at = report.startedAt ?? report.endedAt ?? report.reportedAt;
      const to = report.to ?? (report.flowId === null ? null : `flow:${report.flowId}`);
      if (at === null || (report.bridge === null && report.from === null && to === null)) {
        return undefined;
      }
      const numbers = calleeHash(`${report.bridge ?? ""}|${report.from ?? ""}|${to ?? ""}`);
      return `call::${numbers}:${report.status}:${at.getTime()}`;
    }
  }
}

/**
 * A call key's callee: the first 16 hex digits of the number's SHA-256, as in SQL
 * `left(encode(sha256(convert_to(n, 'UTF8')), 'hex'), 16)`: not a secret, but no number in logs.
 * (@noble/hashes, 1.4 µs: WebCrypto's digest is asynchronous and cost 12–28 µs of CPU here.)
 */
export function calleeHash(number: string): string {
  return sha256Hex(number).slice(0, 16);
}

export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}
