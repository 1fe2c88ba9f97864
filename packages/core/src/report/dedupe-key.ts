import type { Report } from "./schemas.js";

/**
 * A report's identity, for deduplication and as the queue's job id: a delivery report by its
 * message id and status (the same message reports DELIVRD once, but may report ENROUTE, then
 * DELIVRD); a call report by its campaign message id, callee, status and start time. A call
 * report without `mid` has no identity (composed templates may leave it out): undefined, so
 * it is not deduplicated unless the `dedupeKey` option gives a key.
 *
 * @example
 * defaultDedupeKey(report); // "delivery:b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1:DELIVRD"
 */
export function defaultDedupeKey(report: Report): string | undefined {
  if (report.type === "delivery") return `delivery:${report.id}:${report.status}`;
  if (report.mid === null) return undefined;
  const start = report.startedAt === null ? "" : String(report.startedAt.getTime());
  return `call:${report.mid}:${report.to ?? ""}:${report.status}:${start}`;
}
