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
import pg from "pg";
import { createTables, recordDelivery } from "./messages.js";
import { serve } from "./serve.js";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
await createTables(pool);

const receiver = webhookReceiver({
  path: "/webhooks",
  // No `secret` here: it is read from REPORTKIT_SECRET.
  dedupe: postgresInbox({ pool }),
  async onDelivery(report, ctx) {
    console.log(await recordDelivery(ctx.tx, report));
  },
});
serve(receiver, pool);
