// The app's own messages, shared by the synchronous server (server.ts) and queue mode's worker
// (queue-worker.ts): its table, a delivery report recorded through the report's transaction
// (ctx.tx), and a message as GET /messages/:id shows it.
import type { DeliveryReport } from "@reportkit/core";
import { postgresInboxSql, recordStatus } from "@reportkit/postgres";
import type pg from "pg";

/** The app's table and reportkit's (in a real app, a migration made them). */
export async function createTables(pool: pg.Pool): Promise<void> {
  await pool.query(`CREATE TABLE IF NOT EXISTS messages (
  id text PRIMARY KEY,
  mobile text,
  delivered_at timestamptz,
  reports integer NOT NULL DEFAULT 0
)`);
  await pool.query(postgresInboxSql());
}

/**
 * Records `report` in `tx` (the report's transaction): the message's status only ever forward
 * (recordStatus), and `reports` counts the reports taken for the message, 1 per report however
 * often the provider sends it. Returns the line to log.
 */
export async function recordDelivery(tx: pg.PoolClient, report: DeliveryReport): Promise<string> {
  const recorded = await recordStatus(tx, report);
  await tx.query(
    `INSERT INTO messages (id, mobile, delivered_at, reports) VALUES ($1, $2, $3, 1)
     ON CONFLICT (id) DO UPDATE SET mobile = COALESCE(EXCLUDED.mobile, messages.mobile),
       delivered_at = CASE WHEN $4 THEN EXCLUDED.delivered_at ELSE messages.delivered_at END,
       reports = messages.reports + 1`,
    [report.id, report.mobile, report.deliveredAt, recorded.applied],
  );
  return recorded.applied
    ? `delivery ${report.id}: ${report.status} recorded (${recorded.outcome})`
    : `delivery ${report.id}: ${report.status} kept in the history; the message stays ${recorded.status}`;
}

/** The message with its status and history, or undefined. */
export async function messageById(pool: pg.Pool, id: string): Promise<unknown> {
  const { rows } = await pool.query(
    `SELECT m.id, m.mobile, s.status, s.outcome, s.final, m.delivered_at, m.reports,
       (SELECT json_agg(h.status ORDER BY h.id) FROM reportkit_status_history h
        WHERE h.message_id = m.id) AS history
     FROM messages m JOIN reportkit_message_status s ON s.message_id = m.id WHERE m.id = $1`,
    [id],
  );
  return rows[0];
}
