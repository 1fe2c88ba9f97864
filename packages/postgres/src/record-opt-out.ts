// An opt-out in the ledger (an `unsubscribe` report: the sms:unsubscription event and the other
// channels'), one row per opt-out in reportkit_opt_outs, written in the caller's transaction;
// and mayMessage, which reads them: in India (TRAI) the sender must honour an opt-out.
import type { UnsubscribeReport } from "@reportkit/core";
import {
  checkExecutor,
  checkKind,
  type Executor,
  ledgerQuery,
  pgText,
} from "./ledger-arguments.js";
import { numberKey } from "./number-key.js";
import { OPT_OUTS_TABLE } from "./table-names.js";

/** What recordOptOut did. */
export interface RecordedOptOut {
  /** False when this opt-out (its `id`) was recorded before. */
  recorded: boolean;
}

const INSERT = `INSERT INTO ${OPT_OUTS_TABLE} (id, receiver, receiver_key, type, value, created_at, received_at)
VALUES ($1, $2, $3, $4, $5, $6, now())
ON CONFLICT (id) DO NOTHING`;

// An opt-out row of every sender: type "all", or type "sender" with the value "*". Another
// type (a WhatsApp "category") is kept, and blocks no SMS sender. Compared without case or spaces.
const SENDER = "lower(btrim(type)) = 'sender'";
export const EVERY_SENDER = `(lower(btrim(type)) = 'all' OR (${SENDER} AND btrim(value) = '*'))`;

const BLOCKED = `SELECT EXISTS (SELECT 1 FROM ${OPT_OUTS_TABLE} WHERE receiver_key = $1
  AND (${EVERY_SENDER} OR (${SENDER} AND lower(btrim(value)) = lower(btrim($2))))) AS blocked`;

/**
 * Records an opt-out (`onUnsubscribe`'s report) in `reportkit_opt_outs`, in your transaction
 * (the inbox's `ctx.tx`): the number (`receiver`, and its last 10 digits, which mayMessage
 * compares), what it opted out of (`type`: "sender" or "all", and `value`: the sender id or
 * "*") and when. The same opt-out (its `id`) is recorded once.
 *
 * @example
 * import { postgresInbox, recordOptOut } from "@reportkit/postgres";
 *
 * const receiver = createReceiver({
 *   dedupe: postgresInbox({ connectionString: process.env.DATABASE_URL }),
 *   async onUnsubscribe(report, ctx) {
 *     await recordOptOut(ctx.tx, report);
 *   },
 * });
 */
export async function recordOptOut(
  tx: Executor,
  report: UnsubscribeReport,
): Promise<RecordedOptOut> {
  checkExecutor("recordOptOut", tx);
  checkKind("recordOptOut", report, "unsubscribe", "onUnsubscribe");
  const { id, receiver, scope, value, createdAt } = report;
  const key = receiver === null ? null : numberKey(receiver);
  const { rowCount } = await ledgerQuery("recordOptOut", OPT_OUTS_TABLE, tx, INSERT, [
    pgText(id),
    pgText(receiver),
    key,
    pgText(scope),
    pgText(value),
    createdAt,
  ]);
  return { recorded: rowCount === 1 };
}

/**
 * Whether `number` may still be messaged by `senderId`, by the opt-outs recordOptOut recorded:
 * false once the number opted out of that sender id (type "sender", compared without case) or
 * of every sender (type "all", or the value "*"). Numbers are compared by their last 10 digits,
 * so "+91 98765 43210" and "9876543210" are one number.
 *
 * @example
 * if (await mayMessage(pool, "919876543210", "DEMOCO")) await sendSms(...);
 */
export async function mayMessage(db: Executor, number: string, senderId: string): Promise<boolean> {
  checkExecutor("mayMessage", db);
  const key = typeof number === "string" ? numberKey(number) : null;
  if (key === null) {
    throw new TypeError(
      `mayMessage: \`number\` must be a phone number with digits, e.g. "919876543210"; got ${JSON.stringify(number)}.`,
    );
  }
  if (typeof senderId !== "string" || senderId.trim() === "") {
    throw new TypeError(
      `mayMessage: \`senderId\` must be the sender id (the DLT header) you would send from, e.g. "DEMOCO"; got ${JSON.stringify(senderId)}.`,
    );
  }
  const { rows } = await ledgerQuery<{ blocked: boolean }>(
    "mayMessage",
    OPT_OUTS_TABLE,
    db,
    BLOCKED,
    [key, pgText(senderId)],
  );
  return rows[0]?.blocked !== true;
}
