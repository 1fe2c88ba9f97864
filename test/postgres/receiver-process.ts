// One receiver process sharing a Postgres with others: `receiver-process.ts <express|fastify|hono>`
// serves POST /webhooks with the given adapter and a postgresInbox, its handler inserting the
// report into the test's own `deliveries` table through ctx.tx. With HANG_AFTER_INSERT=1 the
// handler prints "inserted <id>" after its insert and never settles (the test kills the process
// before COMMIT); with KILL_AFTER_COMMIT=1 the process kills itself (SIGKILL) right after the
// report's COMMIT, before the reply; with HOLD_MS=<n> the handler keeps its transaction open up
// to n ms after its insert (a random time), so that a kill or a restart finds some open.
// Prints "listening on <url>" once ready.
import type { DeliveryReport } from "@reportkit/core";
import { type PostgresScope, postgresInbox } from "@reportkit/postgres";
import { requiredEnv, serveReceiver } from "../support/serve-receiver.js";

const [framework] = process.argv.slice(2);
const env = requiredEnv;

const dedupe = postgresInbox({ connectionString: env("DATABASE_URL") });
if (process.env.KILL_AFTER_COMMIT === "1") {
  const complete = dedupe.complete.bind(dedupe);
  dedupe.complete = async (key, owner) => {
    await complete(key, owner);
    process.kill(process.pid, "SIGKILL");
  };
}

async function onDelivery(report: DeliveryReport, ctx: PostgresScope): Promise<void> {
  await ctx.tx.query("INSERT INTO deliveries (report_id, status, framework) VALUES ($1, $2, $3)", [
    report.id,
    report.status,
    framework,
  ]);
  const hold = Number(process.env.HOLD_MS ?? 0);
  if (hold > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * hold));
  if (process.env.HANG_AFTER_INSERT === "1") {
    console.log(`inserted ${report.id}`);
    await new Promise(() => {});
  }
}

const options = { secret: env("TOKEN"), dedupe, onDelivery, logger: false as const };

await serveReceiver(framework, options, dedupe);
