// A message's status that only moves forward, in the caller's transaction: one row per message
// in reportkit_message_status, every status given in reportkit_status_history. The decision is
// one INSERT … ON CONFLICT … DO UPDATE … WHERE, so two receivers recording two statuses of one
// message at the same instant cannot both win: the second waits for the first's row and is
// judged against it. The rule is @reportkit/wire's `supersedes`, written in SQL: like it, the
// statement reads a status's finality and outcome from wire's status table (handed to it as one
// JSON parameter, built from the table), so that a row recorded before its status joined the
// table (HANDSET-BUSY, not final then) is judged as the table reads it now.
import {
  classifyDeliveryStatus,
  DELIVERY_STATUSES,
  type DeliveryOutcome,
  type DeliveryReport,
  DLT_REJECTION,
  isStatusConflict,
  STATUS_PRECEDENCES,
  type StatusPrecedence,
} from "@reportkit/core";
import { REPORT_TIME_LEAD_MS } from "@reportkit/wire";
import { storedKey } from "@reportkit/wire/internal";
import type pg from "pg";
import {
  DETAIL_NAMES,
  DETAIL_UPDATES,
  detailPlaceholders,
  detailValues,
} from "./message-details.js";
import { withoutNul } from "./pg-text.js";
import { MESSAGE_STATUS_TABLE, STATUS_HISTORY_TABLE } from "./schema.js";

export interface RecordStatusOptions {
  /**
   * Between two different final statuses that both know the outcome (a provider fault):
   * `"first"` (default) keeps the one recorded first, `"latest"` takes the later one by the
   * reports' own time (by arrival when either has none). Either way the conflict is marked in
   * the history and logged.
   */
  precedence?: StatusPrecedence;
  /**
   * When the report arrived, for ordering two non-final statuses without a time of their own,
   * and the bound of a report's own time (believed at most 5 minutes past its arrival).
   * Default: the database's clock when the transaction began (with the inbox: when the report's
   * processing began), one clock for every receiver.
   */
  receivedAt?: Date;
  /** Where the one line about a conflict goes. Default console; `false` for none. */
  logger?: { warn(message: string): unknown } | false;
}

/** What recordStatus did, and the message's status after it. */
export interface RecordedStatus {
  /** Whether this report's status became the message's status. */
  applied: boolean;
  /** The message's status now (this report's when applied, else the one kept), as sent. */
  status: string;
  outcome: DeliveryOutcome;
  final: boolean;
  /** The message's status before this report; null when this was its first. */
  previous: string | null;
  /** Two different final statuses that both know the outcome: marked in the history, logged. */
  conflict: boolean;
}

type Executor = Pick<pg.ClientBase, "query">;

const OPTION_NAMES = new Set(["precedence", "receivedAt", "logger"]);

// A report's own time as rule 4 orders by: believed at most REPORT_TIME_LEAD_MS past its arrival.
const ordering = (row: string) =>
  `LEAST(${row}.reported_at, ${row}.updated_at + interval '${REPORT_TIME_LEAD_MS} milliseconds')`;

// Rule 4 of `supersedes`: the later by the reports' own time when both have one, else by arrival.
const LATER = `CASE WHEN EXCLUDED.reported_at IS NOT NULL AND recorded.reported_at IS NOT NULL
    THEN ${ordering("EXCLUDED")} > ${ordering("recorded")}
    ELSE EXCLUDED.updated_at > recorded.updated_at END`;

// The status table as the statement reads it ($8): each status the table knows (upper case, as
// the table keys it) with its finality and outcome. Built once, from the table.
const STATUS_TABLE_JSON = JSON.stringify(
  Object.fromEntries(
    DELIVERY_STATUSES.map((status) => {
      const { final, outcome } = classifyDeliveryStatus(status);
      return [status, { final, outcome }];
    }),
  ),
);

// The recorded status's finality and outcome as the table reads it: its row of $8; else a status
// starting with DLT- (the table's prefix rule); else, for a status the table does not know, the
// row's own columns.
const RECORDED_KEY = "upper(btrim(recorded.status))";
const RECORDED_ROW = `($8::jsonb -> ${RECORDED_KEY})`;
const RECORDED_DLT = `${RECORDED_KEY} LIKE '${DLT_REJECTION.prefix}_%'`;
const RECORDED_FINAL = `COALESCE((${RECORDED_ROW} ->> 'final')::boolean, ${RECORDED_DLT} OR recorded.final)`;
const RECORDED_UNKNOWN = `COALESCE(${RECORDED_ROW} ->> 'outcome', CASE WHEN ${RECORDED_DLT} THEN '${DLT_REJECTION.outcome}' ELSE recorded.outcome END) = 'unknown'`;

// $1 message id, $2 status, $3 outcome, $4 final (both as the table reads $2), $5 the report's
// own time, $6 arrival (null: the transaction's start), $7 whether precedence is "latest", $8
// the status table. The WHERE is `supersedes`: rule 2, then 3 (final beats non-final), 4, 5 (a
// known outcome beats unknown: when the two differ, the recorded one is unknown exactly when the
// report's is not), 6.
// $9 on: the message's details (message-details.ts), written with the status that moves.
const DECIDE = `INSERT INTO ${MESSAGE_STATUS_TABLE} AS recorded
  (message_id, status, outcome, final, reported_at, updated_at, first_seen, ${DETAIL_NAMES})
VALUES ($1, $2, $3, $4, $5::timestamptz, COALESCE($6::timestamptz, now()), COALESCE($6::timestamptz, now()), ${detailPlaceholders(9)})
ON CONFLICT (message_id) DO UPDATE SET
  status = EXCLUDED.status, outcome = EXCLUDED.outcome, final = EXCLUDED.final,
  ${DETAIL_UPDATES},
  reported_at = EXCLUDED.reported_at, updated_at = EXCLUDED.updated_at,
  previous_status = recorded.status
WHERE upper(btrim(EXCLUDED.status)) <> ${RECORDED_KEY} AND CASE
  WHEN EXCLUDED.final <> ${RECORDED_FINAL} THEN EXCLUDED.final
  WHEN NOT EXCLUDED.final THEN ${LATER}
  WHEN (EXCLUDED.outcome = 'unknown') <> (${RECORDED_UNKNOWN}) THEN EXCLUDED.outcome <> 'unknown'
  ELSE $7::boolean AND ${LATER}
END
RETURNING previous_status`;

// After DECIDE the message's row is locked by this transaction (ON CONFLICT DO UPDATE locks the
// row it judged, updated or not): what this reads is what DECIDE judged against, until COMMIT.
const KEPT = `SELECT status, outcome, final FROM ${MESSAGE_STATUS_TABLE} WHERE message_id = $1`;

const HISTORY = `INSERT INTO ${STATUS_HISTORY_TABLE}
  (message_id, status, outcome, final, reported_at, received_at, applied, conflict)
VALUES ($1, $2, $3, $4, $5::timestamptz, COALESCE($6::timestamptz, now()), $7, $8)`;

/**
 * Records a delivery report's status for its message (`report.id`), in your transaction (the
 * inbox's `ctx.tx`), so that the message's status only moves forward: a final status replaces a
 * non-final one and is never replaced by one; between two non-final ones the later wins (by the
 * report's own time, `deliveredAt`, believed at most 5 minutes past the report's arrival, else
 * by arrival); a final status with a known outcome
 * replaces TIMEOUT-DLR or UNKNOWN; between two different finals the first stays (see
 * `precedence`). Which statuses are final, and their outcome, is the status table's (docs/statuses.md),
 * for the report and for the status recorded before it alike. Every status given is kept in
 * `reportkit_status_history`, applied or not.
 *
 * The message's row also keeps what the reports say about it, for the insights (docs/insights.md):
 * its status's `reason` and `transient`; its times (sent, submitted, delivered), credits and
 * units, operator, region and country with their codes, and the `custom`, `custom1`, `custom2`
 * tags, from the report that moved its status (what that report does not carry is kept from an
 * earlier one). A report that does not move the status changes none of them.
 *
 * @example
 * import { postgresInbox, recordStatus } from "@reportkit/postgres";
 *
 * const receiver = createReceiver({
 *   dedupe: postgresInbox({ connectionString: process.env.DATABASE_URL }),
 *   async onDelivery(report, ctx) {
 *     const { applied, status } = await recordStatus(ctx.tx, report);
 *     if (applied && report.final) await notifySender(report.id, status);
 *   },
 * });
 */
export async function recordStatus(
  tx: Executor,
  report: DeliveryReport,
  options: RecordStatusOptions = {},
): Promise<RecordedStatus> {
  checkArguments(tx, report, options);
  const precedence = options.precedence ?? "first";
  const { id, status } = report;
  const { final, outcome } = judged(report);
  // Any id and status can be kept: an id Postgres cannot hold as it is (NUL, a lone surrogate,
  // over 1 KiB) by its hash, never merged with another's; a status with NUL written out.
  const messageId = await storedKey(id);
  const values = [
    messageId,
    withoutNul(status),
    outcome,
    final,
    report.deliveredAt,
    options.receivedAt ?? null,
  ];
  let decided: pg.QueryResult<{ previous_status: string | null }>;
  try {
    decided = await tx.query(DECIDE, [
      ...values,
      precedence === "latest",
      STATUS_TABLE_JSON,
      ...detailValues(report),
    ]);
  } catch (error) {
    throw explained(error);
  }
  const applied = decided.rowCount === 1;
  let kept: { status: string; outcome: DeliveryOutcome; final: boolean };
  let previous: string | null;
  let conflict: boolean;
  if (applied) {
    previous = decided.rows[0]?.previous_status ?? null;
    kept = { status, outcome, final };
    conflict =
      previous !== null && isStatusConflict(kept, { status: previous, ...classify(previous) });
  } else {
    const found = await tx.query<typeof kept>(KEPT, [messageId]);
    const row = found.rows[0] as typeof kept;
    kept = { status: row.status, ...judged(row) };
    previous = kept.status;
    conflict = isStatusConflict({ status, outcome, final }, kept);
  }
  await tx.query(HISTORY, [...values, applied, conflict]);
  if (conflict && options.logger !== false) {
    const first = applied ? previous : kept.status;
    const winner = applied ? status : kept.status;
    (options.logger ?? console).warn(
      `recordStatus: message ${JSON.stringify(id)} reported two different final statuses, ${first} and then ${status}: the provider contradicts itself. ${winner} is kept (precedence "${precedence}"); both are in ${STATUS_HISTORY_TABLE}, the later one marked conflict.`,
    );
  }
  return {
    applied,
    status: kept.status,
    outcome: kept.outcome,
    final: kept.final,
    previous,
    conflict,
  };
}

function classify(status: string): { final: boolean; outcome: DeliveryOutcome } {
  const { final, outcome } = classifyDeliveryStatus(status);
  return { final, outcome };
}

/**
 * A status's finality and outcome as the table reads it; for a status the table does not know,
 * the report's (or the row's) own. A report revived from a job an older receiver queued, or a
 * row an older reportkit recorded, may say "not final" for a status the table now knows.
 */
function judged(point: { status: string; final: boolean; outcome: DeliveryOutcome }): {
  final: boolean;
  outcome: DeliveryOutcome;
} {
  const { known, final, outcome } = classifyDeliveryStatus(point.status);
  return known ? { final, outcome } : { final: point.final, outcome: point.outcome };
}

/** A missing table or column says how to create it; anything else is Postgres's own error. */
function explained(error: unknown): unknown {
  const code = (error as { code?: string }).code;
  if (code === "42703") {
    return new Error(
      `recordStatus: the table ${MESSAGE_STATUS_TABLE} lacks columns it now keeps (${(error as Error).message}): it was made by an older reportkit. postgresInbox adds them before the first report; without the inbox (or with createTables: false), run the SQL of postgresInboxSql() in a migration: its ALTER TABLE … ADD COLUMN IF NOT EXISTS adds them.`,
      { cause: error },
    );
  }
  if (code !== "42P01") return error;
  return new Error(
    `recordStatus: the table ${MESSAGE_STATUS_TABLE} does not exist. postgresInbox creates it with its own tables before the first report; without the inbox, run the SQL of postgresInboxSql() in a migration.`,
    { cause: error },
  );
}

function checkArguments(tx: unknown, report: unknown, options: unknown): void {
  if (typeof (tx as { query?: unknown } | null)?.query !== "function") {
    throw new TypeError(
      "recordStatus: `tx` must be a pg client in a transaction, e.g. the inbox's ctx.tx: recordStatus(ctx.tx, report).",
    );
  }
  const given = report as Partial<DeliveryReport> | null;
  if (given?.type !== "delivery") {
    throw new TypeError(
      `recordStatus: \`report\` must be an SMS delivery report (type "delivery"), got ${given === null || typeof given !== "object" ? String(given) : `type ${JSON.stringify(given.type)}`}. Record a call report with recordCall(ctx.tx, report) and an opt-out with recordOptOut(ctx.tx, report).`,
    );
  }
  if (typeof given.final !== "boolean" || typeof given.outcome !== "string") {
    throw new TypeError(
      "recordStatus: `report` has no `final` and `outcome`: pass the report reportkit gave the handler (or parseReport's), not one built by hand.",
    );
  }
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      'recordStatus: `options` must be an object, e.g. { precedence: "latest" }.',
    );
  }
  for (const name of Object.keys(options)) {
    if (!OPTION_NAMES.has(name)) {
      throw new TypeError(
        `recordStatus: unknown option \`${name}\`; the options are ${[...OPTION_NAMES].join(", ")}.`,
      );
    }
  }
  const { precedence, receivedAt, logger } = options as RecordStatusOptions;
  if (precedence !== undefined && !STATUS_PRECEDENCES.includes(precedence)) {
    throw new TypeError(
      `recordStatus: \`precedence\` must be "first" or "latest", got ${JSON.stringify(precedence)}.`,
    );
  }
  if (
    receivedAt !== undefined &&
    !(receivedAt instanceof Date && !Number.isNaN(receivedAt.getTime()))
  ) {
    throw new TypeError(
      `recordStatus: \`receivedAt\` must be a valid Date (e.g. ctx.receivedAt), got ${String(receivedAt)}.`,
    );
  }
  if (logger !== undefined && logger !== false && typeof logger?.warn !== "function") {
    throw new TypeError(
      "recordStatus: `logger` must have a warn(message) method (console fits), or be false.",
    );
  }
}
