// Queue mode on Postgres alone, the web process: the receiver answers 202 once pg-boss committed
// the report's job (503 while Postgres is down, never 202); queue-worker.ts records it. GET
// /messages/:id shows what the worker recorded.
// Start (from the repository's root): DATABASE_URL=postgres://user:password@127.0.0.1:5432/app
// REPORTKIT_SECRET=secret npx -y pnpm@10.34.9 --filter example-postgres start:receiver
import { webhookReceiver } from "@reportkit/express";
import { pgBossQueue } from "@reportkit/pg-boss";
import express from "express";
import pg from "pg";
import { createTables, messageById } from "./messages.js";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
await createTables(pool);

const app = express();
// The same pool: pg-boss's schema and the queue are created on the first report.
const receiver = webhookReceiver({ path: "/webhooks", queue: pgBossQueue({ pool }) });
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
