// Queue mode on Postgres alone, the worker (as many as you like): each report recorded exactly
// once, in the Postgres inbox's transaction with its job's completion (ctx.tx), retried for a
// day when the handler fails. A report whose message is not known yet (MESSAGES=known: only
// ids already in `messages`, as an app whose send stores them first) is parked, not failed: it
// runs again a little later, for an hour at most.
// Start (from the repository's root): DATABASE_URL=postgres://user:password@127.0.0.1:5432/app
// npx -y pnpm@10.34.9 --filter example-postgres start:worker
import { RetryLater } from "@reportkit/core";
import { createWorker } from "@reportkit/pg-boss";
import pg from "pg";
import { createTables, recordDelivery } from "./messages.js";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
await createTables(pool);
const knownOnly = process.env.MESSAGES === "known";

const worker = createWorker({
  pool,
  concurrency: 4,
  parking: { delayMs: 500 },
  async onDelivery(report, ctx) {
    if (knownOnly) {
      const { rowCount } = await ctx.tx.query("SELECT 1 FROM messages WHERE id = $1", [report.id]);
      if (rowCount === 0) throw new RetryLater(`message ${report.id} is not stored yet`);
    }
    console.log(await recordDelivery(ctx.tx, report));
  },
});
console.log("worker ready");

process.once("SIGTERM", async () => {
  await worker.close();
  await pool.end();
});
