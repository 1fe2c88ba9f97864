// A call report in the ledger: one row per call in reportkit_calls, written in the caller's
// transaction. A call report is pushed once the call has ended (every status the table knows is
// final), so there is no order to keep: a retried push of the same call (the same identity as
// the receiver's `defaultDedupeKey`) is recorded once.
import { type CallReport, classifyCallStatus, defaultDedupeKey } from "@reportkit/core";
import {
  checkExecutor,
  checkKind,
  type Executor,
  int4,
  ledgerQuery,
  pgText,
} from "./ledger-arguments.js";
import { CALLS_TABLE } from "./table-names.js";

/** What recordCall did. */
export interface RecordedCall {
  /** False when this call was recorded before (a retried push). */
  recorded: boolean;
}

const INSERT = `INSERT INTO ${CALLS_TABLE}
  (call_key, mid, status, outcome, transient, source, duration, billing, started_at, ended_at,
   reported_at, received_at, flow_id, hangup_by, status1, status2)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now(), $12, $13, $14, $15)
ON CONFLICT (call_key) DO NOTHING`;

/**
 * Records a call report (`onCall`'s) in `reportkit_calls`, in your transaction (the inbox's
 * `ctx.tx`): its status with the table's outcome and `transient`, the source (OBD or C2C), the
 * duration and a Click2Call's billed seconds (`billing`), its times, flow, the legs' statuses
 * and who hung up. No phone number is kept. A call the receiver would call a duplicate (the
 * same `defaultDedupeKey`) is recorded once; a call with no identity at all, every time.
 *
 * @example
 * import { postgresInbox, recordCall } from "@reportkit/postgres";
 *
 * const receiver = createReceiver({
 *   dedupe: postgresInbox({ connectionString: process.env.DATABASE_URL }),
 *   async onCall(report, ctx) {
 *     await recordCall(ctx.tx, report);
 *   },
 * });
 */
export async function recordCall(tx: Executor, report: CallReport): Promise<RecordedCall> {
  checkExecutor("recordCall", tx);
  checkKind("recordCall", report, "call", "onCall");
  const row = classifyCallStatus(report.status);
  const { rowCount } = await ledgerQuery("recordCall", CALLS_TABLE, tx, INSERT, [
    pgText(defaultDedupeKey(report) ?? null),
    pgText(report.mid),
    pgText(report.status),
    row.known ? row.outcome : report.outcome,
    row.known ? row.transient : report.transient,
    pgText(report.source),
    int4(report.duration),
    int4(report.billing),
    report.startedAt,
    report.endedAt,
    report.reportedAt,
    int4(report.flowId),
    pgText(report.hangupBy),
    pgText(report.status1),
    pgText(report.status2),
  ]);
  return { recorded: rowCount === 1 };
}
