// Delivery reports recorded exactly once in the app's own Postgres: each report's handler
// writes through the report's transaction (ctx.tx), which also holds the report's dedupe key,
// so the status update and "this report was processed" commit together or not at all. The
// message's status only moves forward (recordStatus): a retried ENROUTE that arrives after
// DELIVRD is kept in the history and leaves the message DELIVRD.
// Start (from the repository's root): DATABASE_URL=postgres://user:password@127.0.0.1:5432/app
// REPORTKIT_SECRET=secret npx -y pnpm@10.34.9 --filter example-postgres start
import { webhookReceiver } from "@reportkit/express";
import { postgresInbox, postgresInboxSql, recordStatus } from "@reportkit/postgres";
import express from "express";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });

// The app's own table and reportkit's (in a real app, a migration made them; the store would
// also create its own on first use): the inbox, the journal, and the message statuses.
await pool.query(`CREATE TABLE IF NOT EXISTS messages (
  id text PRIMARY KEY,
  mobile text,
  delivered_at timestamptz,
  reports integer NOT NULL DEFAULT 0
)`);
await pool.query(postgresInboxSql());

const app = express();

const receiver = webhookReceiver({
  path: "/webhooks",
  // No `secret` here: it is read from REPORTKIT_SECRET.
  dedupe: postgresInbox({ pool }),
  async onDelivery(report, ctx) {
    // The message's status, in reportkit_message_status: only ever forward.
    const recorded = await recordStatus(ctx.tx, report);
    // `reports` counts the reports taken for the message: 1 per report, however often the
    // provider sends it. The delivery time is the applied status's.
    await ctx.tx.query(
      `INSERT INTO messages (id, mobile, delivered_at, reports) VALUES ($1, $2, $3, 1)
       ON CONFLICT (id) DO UPDATE SET mobile = COALESCE(EXCLUDED.mobile, messages.mobile),
         delivered_at = CASE WHEN $4 THEN EXCLUDED.delivered_at ELSE messages.delivered_at END,
         reports = messages.reports + 1`,
      [report.id, report.mobile, report.deliveredAt, recorded.applied],
    );
    console.log(
      recorded.applied
        ? `delivery ${report.id}: ${report.status} recorded (${recorded.outcome})`
        : `delivery ${report.id}: ${report.status} kept in the history; the message stays ${recorded.status}`,
    );
  },
});
app.use(receiver);

app.get("/messages/:id", async (req, res) => {
  const { rows } = await pool.query(
    `SELECT m.id, m.mobile, s.status, s.outcome, s.final, m.delivered_at, m.reports,
       (SELECT json_agg(h.status ORDER BY h.id) FROM reportkit_status_history h
        WHERE h.message_id = m.id) AS history
     FROM messages m JOIN reportkit_message_status s ON s.message_id = m.id WHERE m.id = $1`,
    [req.params.id],
  );
  if (rows.length === 0) res.status(404).json({ error: "no such message" });
  else res.json(rows[0]);
});
app.get("/health", async (_req, res) => {
  const health = await receiver.health();
  res.status(health.ok ? 200 : 503).json(health);
});

const server = app.listen(Number(process.env.PORT ?? 3000), () => {
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : process.env.PORT;
  console.log(`listening on http://127.0.0.1:${port}/webhooks`);
});

process.once("SIGTERM", async () => {
  await receiver.close();
  server.close();
  await pool.end();
});
