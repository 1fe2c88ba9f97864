// Queue mode on Postgres alone, the web process: the receiver answers 202 once pg-boss committed
// the report's job (503 while Postgres is down, never 202); queue-worker.ts records it. GET
// /messages/:id shows what the worker recorded.
// Start (from the repository's root): DATABASE_URL=postgres://user:password@127.0.0.1:5432/app
// REPORTKIT_SECRET=secret npx -y pnpm@10.34.9 --filter example-postgres start:receiver
import { webhookReceiver } from "@reportkit/express";
import { pgBossQueue } from "@reportkit/pg-boss";
import pg from "pg";
import { createTables } from "./messages.js";
import { serve } from "./serve.js";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
await createTables(pool);

// The same pool: pg-boss's schema and the queue are created on the first report.
serve(webhookReceiver({ path: "/webhooks", queue: pgBossQueue({ pool }) }), pool);
