// Which of two statuses of one message is its status: the rule @reportkit/postgres's
// recordStatus runs as one SQL statement, as a pure function for any other store. The two are
// tested against each other on every pair of the status table. Finality and outcome are read from
// the status table wherever it knows the status, so that a status recorded before it joined the
// table (HANDSET-BUSY, not final then) is judged as the table reads it now.
import { classifyDeliveryStatus, statusKey } from "./statuses.js";

/** One status of a message, as a store keeps it. */
export interface StatusPoint {
  /** The status as sent ("DELIVRD"); compared in any case. */
  readonly status: string;
  /**
   * From the report (`report.final`). Used only for a status the table does not know: for one
   * it knows, the table's finality counts (a point stored by an older reportkit may say false).
   */
  readonly final: boolean;
  /**
   * From the report (`report.outcome`): only `"unknown"` matters to the rule. Like `final`, the
   * table's outcome counts for a status it knows.
   */
  readonly outcome: string;
  /**
   * The report's own time: when the message reached this status (a delivery report's
   * `deliveredAt`); null when the report has none. Believed at most `REPORT_TIME_LEAD_MS` past
   * `receivedAt` (see `orderingTime`).
   */
  readonly reportedAt: Date | null;
  /** When the report arrived (a handler's `ctx.receivedAt`, or the database's clock). */
  readonly receivedAt: Date;
}

/**
 * How far past its arrival a report's own time is believed, in ms: 5 minutes, for the
 * provider's clock and ours being apart. A report dated later than that (a forged 9999-12-31,
 * a wall clock read in the wrong zone) is ordered as if dated its arrival plus this much, so
 * that no report can date itself past every later one and pin a message's status.
 */
export const REPORT_TIME_LEAD_MS = 5 * 60_000;

/**
 * Between two different final statuses that both know the outcome (DELIVRD and UNDELIV, say: a
 * provider fault): `"first"` keeps the one recorded first (default: what handlers already acted
 * on does not change under them); `"latest"` takes the later one by the reports' own time (by
 * arrival when either has none).
 */
export type StatusPrecedence = "first" | "latest";

export const STATUS_PRECEDENCES = [
  "first",
  "latest",
] as const satisfies readonly StatusPrecedence[];

/**
 * Whether `next` replaces `current` as the message's status. A status the table knows is judged
 * by the table's `final` and `outcome`, any other by the point's own. The rules, in order:
 * 1. the first status of a message is recorded (`current` null);
 * 2. the same status again (in any case) changes nothing;
 * 3. a final status replaces a non-final one; a non-final one never replaces a final one;
 * 4. between two non-final ones, the later one: by the reports' own time when both have one
 *    (each believed at most REPORT_TIME_LEAD_MS past its arrival), else by arrival (a tie
 *    changes nothing);
 * 5. between two final ones, one with a known outcome replaces one whose outcome is `unknown`
 *    (a late DELIVRD after TIMEOUT-DLR), never the reverse;
 * 6. otherwise (two different finals both known, or both unknown) `precedence` decides:
 *    `"first"` keeps the current one, `"latest"` takes the later one as in rule 4.
 *
 * @example
 * const next = { status: report.status, final: report.final, outcome: report.outcome,
 *   reportedAt: report.deliveredAt, receivedAt: ctx.receivedAt };
 * if (supersedes(next, stored)) await save(next);
 */
export function supersedes(
  next: StatusPoint,
  current: StatusPoint | null,
  precedence: StatusPrecedence = "first",
): boolean {
  if (current === null) return true;
  if (statusKey(next.status) === statusKey(current.status)) return false;
  const n = judged(next);
  const c = judged(current);
  if (n.final !== c.final) return n.final;
  if (!n.final) return isLater(next, current);
  const nextUnknown = n.outcome === "unknown";
  const currentUnknown = c.outcome === "unknown";
  if (nextUnknown !== currentUnknown) return currentUnknown;
  return precedence === "latest" && isLater(next, current);
}

/**
 * Whether `next` and `current` are two different final statuses that both know the outcome:
 * the provider contradicts itself. Rule 6 of {@link supersedes} settles it; a store records and
 * reports it (recordStatus marks the history row and logs one line).
 */
export function isStatusConflict(
  next: Pick<StatusPoint, "status" | "final" | "outcome">,
  current: Pick<StatusPoint, "status" | "final" | "outcome"> | null,
): boolean {
  if (current === null) return false;
  const n = judged(next);
  const c = judged(current);
  return (
    n.final &&
    c.final &&
    n.outcome !== "unknown" &&
    c.outcome !== "unknown" &&
    statusKey(next.status) !== statusKey(current.status)
  );
}

/** The point's finality and outcome as the status table reads its status; its own when unknown. */
function judged(
  point: Pick<StatusPoint, "status" | "final" | "outcome">,
): Pick<StatusPoint, "final" | "outcome"> {
  const found = classifyDeliveryStatus(point.status);
  return found.known ? found : point;
}

/**
 * The time rule 4 orders a status by, in ms: the report's own time, but at most
 * `REPORT_TIME_LEAD_MS` past its arrival; null when the report has no time of its own. In SQL:
 * `LEAST(reported_at, received_at + interval '300000 milliseconds')`.
 */
function orderingTime(point: Pick<StatusPoint, "reportedAt" | "receivedAt">): number | null {
  if (point.reportedAt === null) return null;
  return Math.min(point.reportedAt.getTime(), point.receivedAt.getTime() + REPORT_TIME_LEAD_MS);
}

/** Rule 4: by the reports' own time when both have one, else by arrival. */
function isLater(next: StatusPoint, current: StatusPoint): boolean {
  const [nextTime, currentTime] = [orderingTime(next), orderingTime(current)];
  if (nextTime !== null && currentTime !== null) return nextTime > currentTime;
  return next.receivedAt.getTime() > current.receivedAt.getTime();
}
