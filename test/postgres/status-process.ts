// One receiver process recording message statuses in a Postgres shared with others:
// `status-process.ts <express|fastify|hono>` serves POST /webhooks with the given adapter and a
// postgresInbox, its handler calling recordStatus(ctx.tx, report). Prints "listening on <url>"
// once ready.
import type { DeliveryReport } from "@reportkit/core";
import { type PostgresScope, postgresInbox, recordStatus } from "@reportkit/postgres";
import { requiredEnv, serveReceiver } from "../support/serve-receiver.js";

const [framework] = process.argv.slice(2);

const dedupe = postgresInbox({ connectionString: requiredEnv("DATABASE_URL") });

async function onDelivery(report: DeliveryReport, ctx: PostgresScope): Promise<void> {
  await recordStatus(ctx.tx, report);
}

await serveReceiver(
  framework,
  { secret: requiredEnv("TOKEN"), dedupe, onDelivery, logger: false as const },
  dedupe,
);
