// A receiver in queue mode (every adapter) with @reportkit/pg-boss on a real PostgreSQL server,
// and a real worker: 202 only once the job is committed, 503 (never 202) while Postgres is
// down, and a handler failing for longer than the provider's whole retry window (90 minutes,
// compressed here: the worker's schedule scaled down) still processes every report once it is
// fixed, with nothing left in the journal.
import { defaultDedupeKey, parseReport } from "@reportkit/core";
import {
  createWorker,
  DEFAULT_RETRY,
  pgBossQueue,
  type RetryOptions,
  reportJobId,
} from "@reportkit/pg-boss";
import { postgresJournal } from "@reportkit/postgres";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR } from "../fixtures/samples.js";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../support/postgres-server.js";
import { ADAPTERS, push, type QueueApp, startQueueApp } from "./servers.js";

const quiet = () => {};

function keyOf(payload: Record<string, unknown>): string {
  const parsed = parseReport(payload);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return defaultDedupeKey(parsed.report) ?? "";
}

/**
 * The worker's default schedule with every duration divided by `factor`: the same backoff, the
 * same proportions (a day of retries against the provider's 90 minutes), in compressed time.
 */
function compressed(factor: number): Required<RetryOptions> {
  return {
    delayMs: Math.max(1, Math.round(DEFAULT_RETRY.delayMs / factor)),
    maxDelayMs: Math.round(DEFAULT_RETRY.maxDelayMs / factor),
    forMs: Math.round(DEFAULT_RETRY.forMs / factor),
  };
}

/** The provider's retry window: the first attempt and 3 retries 30 minutes apart. */
const PROVIDER_WINDOW_MS = 90 * 60 * 1000;

describe.runIf(requirePostgresServer("pg-boss-receiver.test.ts"))(
  "queue mode on pg-boss, every adapter",
  () => {
    let server: PostgresServer;
    let admin: pg.Pool;
    const open: { close(): Promise<unknown> }[] = [];
    const closeLater = <T extends { close(): Promise<unknown> }>(thing: T): T => {
      open.push(thing);
      return thing;
    };

    beforeAll(async () => {
      server = await startPostgresServer();
      admin = new pg.Pool({ connectionString: server.url });
      admin.on("error", () => {}); // Postgres is stopped on purpose below.
      await admin.query("CREATE TABLE deliveries (report_id text NOT NULL, status text NOT NULL)");
    });
    afterEach(async () => {
      for (const thing of open.splice(0).reverse()) await thing.close();
    });
    afterAll(async () => {
      await admin?.end();
      await server?.close();
    });

    async function app(adapter: (typeof ADAPTERS)[number], queueName: string) {
      const queue = closeLater(
        pgBossQueue({ connectionString: server.url, queueName, onError: quiet }),
      );
      const running: QueueApp = closeLater(await startQueueApp(adapter, queue));
      return { queue, url: running.url };
    }
    const jobState = async (queueName: string, id: string) =>
      (
        await admin.query("SELECT state FROM pgboss.job WHERE name = $1 AND id = $2", [
          queueName,
          id,
        ])
      ).rows[0]?.state as string | undefined;

    describe.each(ADAPTERS)("%s", (adapter) => {
      it("answers 202 queued only once the job is committed, and the worker records it once", async () => {
        const queueName = `accept-${adapter}`;
        const { url } = await app(adapter, queueName);
        const payload = { ...SAMPLE_DLR, id: `${SAMPLE_DLR.id}-${adapter}` };
        const id = reportJobId(keyOf(payload));
        expect(await push(url, payload)).toEqual({ status: 202, body: { ok: true, queued: true } });
        // Read at once, on another connection: committed before the 202.
        expect(await jobState(queueName, id)).toBe("created");
        // The provider's retry: 202 again, no second job.
        expect(await push(url, payload)).toEqual({ status: 202, body: { ok: true, queued: true } });
        expect(
          Number(
            (await admin.query("SELECT count(*) FROM pgboss.job WHERE name = $1", [queueName]))
              .rows[0].count,
          ),
        ).toBe(1);
        closeLater(
          createWorker({
            connectionString: server.url,
            queueName,
            pollingIntervalMs: 20,
            async onDelivery(report, ctx) {
              await ctx.tx.query("INSERT INTO deliveries VALUES ($1, $2)", [
                report.id,
                report.status,
              ]);
            },
          }),
        );
        await vi.waitFor(async () => expect(await jobState(queueName, id)).toBe("completed"), {
          timeout: 15_000,
        });
        const { rows } = await admin.query(
          "SELECT count(*)::int AS n FROM deliveries WHERE report_id = $1",
          [payload.id],
        );
        expect(rows[0].n).toBe(1);
      });

      it("answers 503 queue_unavailable, never 202, while Postgres is down", async () => {
        const queueName = `down-${adapter}`;
        const { url } = await app(adapter, queueName);
        // The queue was created by a first report; then Postgres goes away.
        expect((await push(url, { ...SAMPLE_DLR, id: `before-${adapter}` })).status).toBe(202);
        await server.stop();
        try {
          for (let i = 0; i < 3; i++) {
            const reply = await push(url, { ...SAMPLE_DLR, id: `during-${adapter}-${i}` });
            expect(reply.status).toBe(503);
            expect(reply.body).toMatchObject({ ok: false, error: { code: "queue_unavailable" } });
          }
        } finally {
          await server.start();
        }
        await vi.waitFor(
          async () =>
            expect((await push(url, { ...SAMPLE_DLR, id: `after-${adapter}` })).status).toBe(202),
          { timeout: 15_000 },
        );
        const { rows } = await admin.query(
          "SELECT data->'report'->>'id' AS id FROM pgboss.job WHERE name = $1 ORDER BY 1",
          [queueName],
        );
        expect(rows.map((r: { id: string }) => r.id)).toEqual([
          `after-${adapter}`,
          `before-${adapter}`,
        ]);
      });
    });

    it("processes every report once a handler that failed for longer than the provider's 90 minutes is fixed, journaling none", async () => {
      // 1 ms of test for 2 s of the real schedule: a day of retries is 43 s, an hour's wait
      // 1.8 s, the provider's 90 minutes 2.7 s. The outage below lasts longer than that.
      const factor = 2000;
      const retry = compressed(factor);
      const outageMs = PROVIDER_WINDOW_MS / factor + 500;
      const queueName = "outage";
      const { url } = await app("fastify", queueName);
      const ids = Array.from({ length: 20 }, (_, i) => `outage-${i}`);
      let fixed = false;
      const attempts = new Map<string, number>();
      closeLater(
        createWorker({
          connectionString: server.url,
          queueName,
          concurrency: 4,
          pollingIntervalMs: 20,
          retry,
          onError: quiet,
          async onDelivery(report, ctx) {
            attempts.set(report.id, ctx.attempt);
            await ctx.tx.query("INSERT INTO deliveries VALUES ($1, $2)", [
              report.id,
              report.status,
            ]);
            if (!fixed) throw new Error("the deploy broke the handler");
          },
        }),
      );
      const started = Date.now();
      for (const id of ids) expect((await push(url, { ...SAMPLE_DLR, id })).status).toBe(202);
      await new Promise((resolve) => setTimeout(resolve, outageMs - (Date.now() - started)));
      expect(Date.now() - started).toBeGreaterThan(PROVIDER_WINDOW_MS / factor);
      fixed = true;
      const written = async () =>
        (
          await admin.query(
            "SELECT report_id, count(*)::int AS n FROM deliveries WHERE report_id = ANY($1) GROUP BY 1",
            [ids],
          )
        ).rows as { report_id: string; n: number }[];
      // Each report runs again within its current wait (at most an hour, scaled) once fixed.
      await vi.waitFor(async () => expect(await written()).toHaveLength(ids.length), {
        timeout: retry.maxDelayMs + 15_000,
      });
      expect((await written()).every((row) => row.n === 1)).toBe(true);
      // Every report was retried through the outage, several times.
      expect(Math.min(...ids.map((id) => attempts.get(id) ?? 0))).toBeGreaterThan(3);
      const journal = closeLater(postgresJournal({ connectionString: server.url }));
      expect(await journal.list({ status: "failed" })).toEqual([]);
    });
  },
);
