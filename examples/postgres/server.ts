// Delivery reports recorded exactly once in the app's own Postgres: each report's handler
// writes through the report's transaction (ctx.tx), which also holds the report's dedupe key,
// so the status update and "this report was processed" commit together or not at all. The
// message's status only moves forward (recordStatus): a retried ENROUTE that arrives after
// DELIVRD is kept in the history and leaves the message DELIVRD. Queue mode's variant, on the
// same database alone: queue-receiver.ts and queue-worker.ts.
// Start (from the repository's root): DATABASE_URL=postgres://user:password@127.0.0.1:5432/app
// REPORTKIT_SECRET=secret npx -y pnpm@10.34.9 --filter example-postgres start
import { webhookReceiver } from "@reportkit/express";
import { postgresInbox } from "@reportkit/postgres";
import express from "express";
import pg from "pg";
import { createTables, messageById, recordDelivery } from "./messages.js";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
await createTables(pool);

const app = express();

const receiver = webhookReceiver({
  path: "/webhooks",
  // No `secret` here: it is read from REPORTKIT_SECRET.
  dedupe: postgresInbox({ pool }),
  async onDelivery(report, ctx) {
    console.log(await recordDelivery(ctx.tx, report));
  },
});
app.use(receiver);

app.get("/messages/:id", async (req, res) => {
  const message = await messageById(pool, req.params.id);
  if (message === undefined) res.status(404).json({ error: "no such message" });
  else res.json(message);
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
