// Delivery reports recorded exactly once in the app's own Postgres: each report's handler
// writes through the report's transaction (ctx.tx), which also holds the report's dedupe key,
// so the status update and "this report was processed" commit together or not at all.
// Start (from the repository's root): DATABASE_URL=postgres://user:password@127.0.0.1:5432/app
// REPORTKIT_TOKEN=secret npx -y pnpm@10.34.9 --filter example-postgres start
import { webhookReceiver } from "@reportkit/express";
import { postgresInbox } from "@reportkit/postgres";
import express from "express";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });

// The app's own table (in a real app, a migration made it; `postgresInboxSql()` gives the
// inbox's and journal's tables for the same migration, or the store creates them itself).
await pool.query(`CREATE TABLE IF NOT EXISTS messages (
  id text PRIMARY KEY,
  mobile text,
  status text NOT NULL,
  delivered_at timestamptz,
  reports integer NOT NULL DEFAULT 0
)`);

const app = express();

const receiver = webhookReceiver({
  path: "/webhooks",
  // No `token` here: it is read from REPORTKIT_TOKEN.
  dedupe: postgresInbox({ pool }),
  async onDelivery(report, ctx) {
    // `reports` counts the reports applied to the message: 1 per report, however often the
    // provider sends it.
    await ctx.tx.query(
      `INSERT INTO messages (id, mobile, status, delivered_at, reports) VALUES ($1, $2, $3, $4, 1)
       ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status,
         delivered_at = EXCLUDED.delivered_at, reports = messages.reports + 1`,
      [report.id, report.mobile, report.status, report.deliveredAt],
    );
    console.log(`delivery ${report.id}: ${report.status} recorded`);
  },
});
app.use(receiver);

app.get("/messages/:id", async (req, res) => {
  const { rows } = await pool.query("SELECT * FROM messages WHERE id = $1", [req.params.id]);
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
