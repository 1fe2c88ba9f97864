// One receiver process sharing a Postgres with others: `receiver-process.ts <express|fastify|hono>`
// serves POST /webhooks with the given adapter and a postgresInbox, its handler inserting the
// report into the test's own `deliveries` table through ctx.tx. With HANG_AFTER_INSERT=1 the
// handler prints "inserted <id>" after its insert and never settles (the test kills the process
// before COMMIT); with KILL_AFTER_COMMIT=1 the process kills itself (SIGKILL) right after the
// report's COMMIT, before the reply. Prints "listening on <url>" once ready.
import type { AddressInfo } from "node:net";
import type { DeliveryReport } from "@reportkit/core";
import { type PostgresScope, postgresInbox } from "@reportkit/postgres";

const [framework] = process.argv.slice(2);
const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`receiver-process: ${name} is not set`);
  return value;
};
const path = "/webhooks";

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
  if (process.env.HANG_AFTER_INSERT === "1") {
    console.log(`inserted ${report.id}`);
    await new Promise(() => {});
  }
}

const options = { token: env("TOKEN"), dedupe, onDelivery, logger: false as const };

/** Serves the receiver with the adapter asked for; resolves to the port. */
async function start(): Promise<number> {
  if (framework === "express") {
    const { default: express } = await import("express");
    const { webhookReceiver } = await import("@reportkit/express");
    const app = express();
    app.use(webhookReceiver({ path, ...options }));
    const server = await new Promise<import("node:http").Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    return (server.address() as AddressInfo).port;
  }
  if (framework === "fastify") {
    const { default: Fastify } = await import("fastify");
    const { webhookReceiver } = await import("@reportkit/fastify");
    const app = Fastify();
    // register() cannot carry the store's type: the handler that uses ctx.tx names it.
    const { onDelivery: _typed, ...untyped } = options;
    await app.register(webhookReceiver, { path, ...untyped });
    app.reportkit.onDelivery<PostgresScope>(onDelivery);
    await app.listen({ port: 0, host: "127.0.0.1" });
    return (app.server.address() as AddressInfo).port;
  }
  if (framework === "hono") {
    const { serve } = await import("@hono/node-server");
    const { Hono } = await import("hono");
    const { webhookReceiver } = await import("@reportkit/hono");
    const app = new Hono();
    app.post(path, webhookReceiver(options));
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    return (server.address() as AddressInfo).port;
  }
  throw new Error(`receiver-process: unknown framework "${framework}" (express, fastify, hono)`);
}

const port = await start();
console.log(`${framework} listening on http://127.0.0.1:${port}`);
process.once("SIGTERM", async () => {
  await dedupe.close();
  process.exit(0);
});
