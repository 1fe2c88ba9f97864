// The package's pair as users import it: pgBossQueue's jobs processed by createWorker's
// workers, against a real PostgreSQL server (see test/support/postgres-server.ts).
import { defaultDedupeKey, parseReport, type Report, RetryLater } from "@reportkit/core";
import type { ReportOutcome, Telemetry, TraceCarrier } from "@reportkit/core/adapter";
import { postgresJournal } from "@reportkit/postgres";
import pg from "pg";
import PgBoss from "pg-boss";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR } from "../../../test/fixtures/samples.js";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../../../test/support/postgres-server.js";
import {
  type CreateWorkerOptions,
  createWorker,
  pgBossQueue,
  type ReportJobContext,
  reportJobId,
} from "./index.js";

function report(payload: Record<string, unknown>): Report {
  const result = parseReport(payload);
  if (!result.ok) throw new Error(result.error.message);
  return result.report;
}

const DLR = report(SAMPLE_DLR);
const CALL = report(SAMPLE_CALL);
const key = (r: Report) => defaultDedupeKey(r) ?? "";
const dlr = (id: string) => report({ ...SAMPLE_DLR, id });
const quiet = () => {};
/** Quick schedules, for tests: every wait in tens of ms. */
const QUICK = {
  pollingIntervalMs: 20,
  retry: { delayMs: 20, maxDelayMs: 100, forMs: 60_000 },
  parking: { limitMs: 60_000, delayMs: 20, maxDelayMs: 100 },
  onError: quiet,
  onParked: quiet,
} satisfies Partial<CreateWorkerOptions>;

describe.runIf(requirePostgresServer("pg-boss index.test.ts"))(
  "pgBossQueue and createWorker",
  () => {
    let server: PostgresServer;
    let admin: pg.Pool;
    let n = 0;
    let queueName: string;
    const closing: { close(): Promise<unknown> }[] = [];
    const close = <T extends { close(): Promise<unknown> }>(thing: T): T => {
      closing.push(thing);
      return thing;
    };

    beforeAll(async () => {
      server = await startPostgresServer();
      admin = new pg.Pool({ connectionString: server.url });
      admin.on("error", () => {}); // the server is stopped on purpose below
      await admin.query(
        "CREATE TABLE deliveries (report_id text NOT NULL, status text NOT NULL); CREATE TABLE messages (id text PRIMARY KEY)",
      );
    });
    afterAll(async () => {
      await admin?.end();
      await server?.close();
    });
    afterEach(async () => {
      for (const thing of closing.splice(0).reverse()) await thing.close();
    });
    const fresh = () => {
      queueName = `test-${++n}`;
      return queueName;
    };
    const queue = () => close(pgBossQueue({ connectionString: server.url, queueName: fresh() }));
    const worker = (options: Partial<CreateWorkerOptions>) =>
      close(createWorker({ connectionString: server.url, queueName, ...QUICK, ...options }));
    const jobs = async (state?: string) =>
      Number(
        (
          await admin.query(
            `SELECT count(*) FROM pgboss.job WHERE name = $1 AND ($2::text IS NULL OR state::text = $2)`,
            [queueName, state ?? null],
          )
        ).rows[0].count,
      );
    const deliveries = async (id: string) =>
      Number(
        (await admin.query("SELECT count(*) FROM deliveries WHERE report_id = $1", [id])).rows[0]
          .count,
      );
    const journal = () => close(postgresJournal({ connectionString: server.url }));

    it("resolves enqueue only once the job is committed, under an id from the dedupe key", async () => {
      const q = queue();
      const id = reportJobId(key(DLR));
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      await q.enqueue(DLR, key(DLR));
      // Read on a connection of the test's own: committed, not only written.
      const { rows } = await admin.query(
        "SELECT state, data FROM pgboss.job WHERE name = $1 AND id = $2",
        [queueName, id],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].state).toBe("created");
      expect(rows[0].data).toMatchObject({
        dedupeKey: key(DLR),
        report: { id: DLR.type === "delivery" ? DLR.id : "" },
      });
    });

    it("adds the job pg-boss's own send would add, column for column", async () => {
      const q = queue();
      await q.enqueue(DLR, key(DLR)); // creates the queue
      await admin.query(
        "UPDATE pgboss.queue SET expire_seconds = 90, retention_minutes = 30 WHERE name = $1",
        [queueName],
      );
      const r = dlr("alike:1");
      await q.enqueue(r, key(r));
      const boss = new PgBoss({ db: { executeSql: (text, values) => admin.query(text, values) } });
      const sent = await boss.send(
        queueName,
        {},
        { retryLimit: 10, retryDelay: 0, retryBackoff: false },
      );
      const { rows } = await admin.query(
        `SELECT name, priority, state, retry_limit, retry_count, retry_delay, retry_backoff,
           singleton_key, singleton_on, expire_in, keep_until - start_after AS kept,
           start_after <= now() AS ready, started_on, completed_on, output, dead_letter, policy
         FROM pgboss.job WHERE name = $1 AND id = ANY($2) ORDER BY id = $3`,
        [queueName, [reportJobId(key(r)), sent], sent],
      );
      expect(rows).toHaveLength(2);
      expect(rows[0]).toEqual(rows[1]);
      expect(rows[0]).toMatchObject({ state: "created", policy: "standard", ready: true });
    });

    it("adds one job for the same report sent 10 times, and the handler runs once", async () => {
      const q = queue();
      await Promise.all(Array.from({ length: 5 }, () => q.enqueue(DLR, key(DLR))));
      for (let i = 0; i < 5; i++) await q.enqueue(DLR, key(DLR));
      expect(await jobs()).toBe(1);
      let calls = 0;
      worker({ onDelivery: () => void calls++ });
      await vi.waitFor(async () => expect(await jobs("completed")).toBe(1), { timeout: 15_000 });
      // A provider retry after it was processed: nothing new.
      await q.enqueue(DLR, key(DLR));
      expect(await jobs()).toBe(1);
      expect(calls).toBe(1);
    });

    it("gives the handlers the typed report and its transaction; writes commit with the job", async () => {
      const q = queue();
      const seen: { report: Report; job: ReportJobContext }[] = [];
      worker({
        async onDelivery(r, ctx) {
          seen.push({ report: r, job: { ...ctx } });
          await ctx.tx.query("INSERT INTO deliveries VALUES ($1, $2)", [r.id, r.status]);
        },
        onCall: (r, ctx) => void seen.push({ report: r, job: ctx }),
      });
      const r = dlr("typed:1");
      await q.enqueue(r, key(r));
      await q.enqueue(CALL, undefined);
      await vi.waitFor(async () => expect(await jobs("completed")).toBe(2), { timeout: 15_000 });
      const delivery = seen.find((s) => s.report.type === "delivery");
      const call = seen.find((s) => s.report.type === "call");
      expect(delivery?.report).toEqual(r);
      expect(call?.report).toEqual(CALL);
      if (delivery?.report.type !== "delivery") throw new Error("no delivery");
      expect(delivery.report.deliveredAt).toBeInstanceOf(Date);
      expect(delivery.job).toMatchObject({
        jobId: reportJobId(key(r)),
        dedupeKey: key(r),
        attempt: 1,
      });
      expect(delivery.job.queuedAt).toBeInstanceOf(Date);
      expect(call?.job.dedupeKey).toBeNull();
      expect(await deliveries(delivery.report.id)).toBe(1);
      expect(
        Number(
          (await admin.query("SELECT count(*) FROM reportkit_inbox WHERE key = $1", [key(r)]))
            .rows[0].count,
        ),
      ).toBe(1);
    });

    it("hands an opt-out and another channel's event to onUnsubscribe and onEvent", async () => {
      const q = queue();
      const seen: string[] = [];
      worker({
        onDelivery: () => {},
        onUnsubscribe: (r, ctx) => void seen.push(`${r.type}:${r.receiver}:${typeof ctx.tx.query}`),
        onEvent: (r) => void seen.push(`${r.type}:${r.event}`),
      });
      const optOut = report({
        id: "u-1",
        receiver: "917002088123",
        type: "sender",
        value: "Demo12",
      });
      const event = report({ event: "rcs:message:read", payload: { id: "e-1", status: "READ" } });
      await q.enqueue(optOut, key(optOut));
      await q.enqueue(event, key(event));
      await vi.waitFor(async () => expect(await jobs("completed")).toBe(2), { timeout: 15_000 });
      expect(seen.sort()).toEqual(["event:rcs:message:read", "unsubscribe:917002088123:function"]);
    });

    it("journals what it gives up on without phone numbers when the inbox's journal is redacted", async () => {
      const q = queue();
      const r = dlr("redacted:1");
      worker({
        retry: { delayMs: 20, maxDelayMs: 40, forMs: 100 },
        inbox: { journalBodies: "redacted", journalTable: "redacted_journal" },
        onError: quiet,
        onDelivery() {
          throw new Error("no customer 919876543210");
        },
      });
      await q.enqueue(r, key(r));
      await vi.waitFor(async () => expect(await jobs("failed")).toBe(1), { timeout: 15_000 });
      const redactedJournal = close(
        postgresJournal({ connectionString: server.url, journalTable: "redacted_journal" }),
      );
      const [entry] = await redactedJournal.list({ status: "failed" });
      expect(JSON.parse(entry?.request.body ?? "")).toMatchObject({
        id: "redacted:1",
        mobile: "[redacted]",
      });
      expect(JSON.stringify(entry)).not.toContain("919876543210");
    });

    it("completes a job whose report is already marked processed without running the handler", async () => {
      const q = queue();
      const r = dlr("already-processed:1");
      await admin.query("INSERT INTO reportkit_inbox (key) VALUES ($1) ON CONFLICT DO NOTHING", [
        key(r),
      ]);
      let calls = 0;
      worker({ onDelivery: () => void calls++ });
      await q.enqueue(r, key(r));
      await vi.waitFor(async () => expect(await jobs("completed")).toBe(1), { timeout: 15_000 });
      expect(calls).toBe(0);
    });

    it("rolls back a failed attempt's writes and retries on its own schedule, without counting twice", async () => {
      const q = queue();
      const r = dlr("flaky:1");
      const attempts: number[] = [];
      worker({
        async onDelivery(report, ctx) {
          attempts.push(ctx.attempt);
          await ctx.tx.query("INSERT INTO deliveries VALUES ($1, $2)", [report.id, report.status]);
          if (attempts.length <= 2) throw new Error(`database down (${attempts.length})`);
        },
      });
      await q.enqueue(r, key(r));
      await vi.waitFor(async () => expect(await jobs("completed")).toBe(1), { timeout: 15_000 });
      expect(attempts).toEqual([1, 2, 3]);
      expect(await deliveries("flaky:1")).toBe(1);
      expect(await journal().list({ status: "failed" })).toEqual([]);
    });

    it("keeps a report failing past retry.forMs as a failed job and in the journal", async () => {
      const q = queue();
      const r = dlr("hopeless:1");
      const errors: string[] = [];
      worker({
        retry: { delayMs: 20, maxDelayMs: 40, forMs: 300 },
        onError: (error, job) => void errors.push(`${job?.attempt}: ${error.message}`),
        onDelivery() {
          throw new Error("CRM refused");
        },
      });
      await q.enqueue(r, key(r));
      await vi.waitFor(async () => expect(await jobs("failed")).toBe(1), { timeout: 15_000 });
      expect(errors.length).toBeGreaterThan(2);
      expect(errors[0]).toBe("1: CRM refused");
      const [entry, ...more] = await journal().list({ status: "failed" });
      expect(more).toEqual([]);
      expect(entry).toMatchObject({ key: key(r), kind: "delivery", status: "failed" });
      expect(entry?.lastError).toMatch(/^handler_failed: CRM refused \(attempt \d+\)$/);
      expect(entry?.request).toMatchObject({
        method: "POST",
        url: "/webhooks",
        contentType: "application/json",
      });
      expect(JSON.parse(entry?.request.body ?? "")).toEqual(r.raw);
      const { rows } = await admin.query("SELECT output FROM pgboss.job WHERE name = $1", [
        queueName,
      ]);
      expect(rows[0].output).toEqual({ message: "CRM refused" });
      // A replay of the journal entry (the receiver enqueues it again): the failed job is put
      // back, and processed once the handler works.
      await journal().resolve(key(r));
      await q.enqueue(r, key(r));
      expect(await jobs("failed")).toBe(0);
    });

    it("parks a report until its message row appears, then processes it once, right after", async () => {
      const q = queue();
      const r = dlr("early:1");
      const parkedRuns: number[] = [];
      let processed = 0;
      worker({
        onParked: (_reason, job) => void parkedRuns.push(job.attempt),
        async onDelivery(report, ctx) {
          const { rowCount } = await ctx.tx.query("SELECT 1 FROM messages WHERE id = $1", [
            report.id,
          ]);
          if (rowCount === 0)
            throw new RetryLater(`message ${report.id} is not stored yet`, { afterMs: 20 });
          await ctx.tx.query("INSERT INTO deliveries VALUES ($1, $2)", [report.id, report.status]);
          processed++;
        },
      });
      await q.enqueue(r, key(r));
      await vi.waitFor(() => expect(parkedRuns.length).toBeGreaterThanOrEqual(3), {
        timeout: 15_000,
      });
      await admin.query("INSERT INTO messages VALUES ($1)", ["early:1"]);
      await vi.waitFor(async () => expect(await jobs("completed")).toBe(1), { timeout: 15_000 });
      expect(processed).toBe(1);
      expect(await deliveries("early:1")).toBe(1);
      // Parked runs are not failed attempts.
      expect(new Set(parkedRuns)).toEqual(new Set([1]));
    });

    it("fails a report parked past the parking limit, then journals it", async () => {
      const q = queue();
      const r = dlr("never-known:1");
      const errors: string[] = [];
      worker({
        parking: { limitMs: 200, delayMs: 20, maxDelayMs: 40 },
        retry: { delayMs: 20, maxDelayMs: 40, forMs: 200 },
        onError: (error) => void errors.push(error.message),
        onDelivery(report) {
          throw new RetryLater(`message ${report.id} is not stored yet`);
        },
      });
      await q.enqueue(r, key(r));
      await vi.waitFor(async () => expect(await jobs("failed")).toBe(1), { timeout: 15_000 });
      expect(errors[0]).toMatch(
        /^message never-known:1 is not stored yet \(parked since .*, past the parking limit of 200 ms\)$/,
      );
      const entries = await journal().list({ status: "failed" });
      expect(entries.map((e) => e.key)).toContain(key(r));
    });

    it("tells its telemetry each attempt's outcome, linked to the trace that queued it; ping() answers", async () => {
      const q = queue();
      const spans: { kind: string; link: TraceCarrier | undefined; outcome?: ReportOutcome }[] = [];
      const telemetry: Telemetry = {
        refused() {},
        startReport(kind, _status, link) {
          const span: (typeof spans)[number] = { kind, link };
          spans.push(span);
          return {
            run: (fn) => fn(),
            handlerDuration() {},
            end(outcome) {
              span.outcome = outcome;
            },
            carrier: () => ({}),
          };
        },
      };
      const known = new Set<string>();
      const w = worker({
        telemetry,
        onDelivery(report) {
          if (report.id === "told:failing" && !known.has(report.id)) {
            known.add(report.id);
            throw new Error("once");
          }
          if (report.id === "told:parked" && !known.has(report.id)) {
            known.add(report.id);
            throw new RetryLater("not yet");
          }
        },
      });
      await w.ping();
      const trace = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" };
      for (const id of ["told:ok", "told:failing", "told:parked"]) {
        await q.enqueue(dlr(id), key(dlr(id)), { trace });
      }
      await vi.waitFor(async () => expect(await jobs("completed")).toBe(3), { timeout: 15_000 });
      expect(spans.map((s) => s.outcome).sort()).toEqual(
        ["acknowledged", "acknowledged", "acknowledged", "failed", "parked"].sort(),
      );
      expect(
        spans.every((s) => s.kind === "delivery" && s.link?.traceparent === trace.traceparent),
      ).toBe(true);
    });

    it("close() waits for the running handler", async () => {
      const q = queue();
      let started = false;
      let finished = false;
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const w = createWorker({
        connectionString: server.url,
        queueName,
        ...QUICK,
        async onDelivery() {
          started = true;
          await released;
          finished = true;
        },
      });
      const r = dlr("closing:1");
      await q.enqueue(r, key(r));
      await vi.waitFor(() => expect(started).toBe(true), { timeout: 15_000 });
      let closed = false;
      const closingWorker = w.close().then(() => {
        closed = true;
      });
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      expect(closed).toBe(false);
      release();
      await closingWorker;
      expect(finished).toBe(true);
      expect(await jobs("completed")).toBe(1);
    });

    it("rejects enqueue while Postgres is down, naming it, and adds again once it is back", async () => {
      const q = queue();
      await q.enqueue(DLR, key(DLR));
      await server.stop();
      try {
        await expect(q.enqueue(CALL, key(CALL))).rejects.toThrow(
          /^pgBossQueue: enqueue failed on Postgres at 127\.0\.0\.1:\d+ \(/,
        );
        await expect(q.ping()).rejects.toThrow(/^pgBossQueue: ping failed on Postgres at /);
      } finally {
        await server.start();
      }
      await vi.waitFor(() => q.enqueue(CALL, key(CALL)), { timeout: 15_000 });
      expect(await jobs()).toBe(2);
    });

    it("creates pg-boss's schema once when several processes start on an empty database at once", async () => {
      await admin.query("CREATE DATABASE fresh");
      const url = server.url.replace(/\/postgres$/, "/fresh");
      const queues = Array.from({ length: 4 }, () =>
        close(pgBossQueue({ connectionString: url, queueName: "together" })),
      );
      // Each one finds no schema, and all but one lose the race to create it.
      await Promise.all(
        queues.map((q, i) => q.enqueue(dlr(`together:${i}`), key(dlr(`together:${i}`)))),
      );
      const fresh = new pg.Client({ connectionString: url });
      await fresh.connect();
      const { rows } = await fresh.query("SELECT count(*)::int AS n FROM pgboss.job");
      await fresh.end();
      expect(rows[0].n).toBe(4);
    });

    it("starts when another process created pg-boss's schema while it was creating it too", async () => {
      await admin.query("CREATE DATABASE racing");
      const url = server.url.replace(/\/postgres$/, "/racing");
      // Another process (a worker starting) has created the schema, not yet committed.
      const other = new pg.Client({ connectionString: url });
      await other.connect();
      await other.query("BEGIN");
      await other.query("CREATE SCHEMA pgboss");
      const queue = close(pgBossQueue({ connectionString: url, queueName: "racing" }));
      const added = queue.enqueue(DLR, key(DLR));
      // The queue's CREATE SCHEMA IF NOT EXISTS saw no schema, and waits on the other's row.
      await vi.waitFor(
        async () => {
          const { rows } = await admin.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = 'racing' AND wait_event_type = 'Lock'",
          );
          expect(rows[0].n).toBe(1);
        },
        { timeout: 10_000 },
      );
      await other.query("COMMIT");
      await other.end();
      // Its create failed on the schema's unique name; it starts again and adds the job.
      await added;
      const check = new pg.Client({ connectionString: url });
      await check.connect();
      const { rows } = await check.query("SELECT count(*)::int AS n FROM pgboss.job");
      await check.end();
      expect(rows[0].n).toBe(1);
    });

    it("checks its options once, at construction, with messages that say how to fix them", () => {
      expect(() => pgBossQueue({ connectionString: "localhost:5432" })).toThrow(
        /^pgBossQueue: `connectionString` must start with postgres:\/\//,
      );
      expect(() => pgBossQueue({ connectionString: server.url, url: "x" } as never)).toThrow(
        "pgBossQueue: unknown option `url`; the options are pool, connectionString, queueName, schema, onError.",
      );
      expect(() => pgBossQueue({ connectionString: server.url, queueName: "a:b" })).toThrow(
        '`queueName` must be 1 to 100 letters, digits, "_" or "-", got "a:b".',
      );
      expect(() => createWorker({ connectionString: server.url })).toThrow(
        /give at least one handler/,
      );
      expect(() =>
        createWorker({ connectionString: server.url, onCall: () => {}, retry: { forMs: 0 } }),
      ).toThrow(
        "createWorker: retry: `forMs` must be a whole number of milliseconds above 0, got 0.",
      );
      expect(() =>
        createWorker({
          connectionString: server.url,
          onCall: () => {},
          parking: { limit: 1 } as never,
        }),
      ).toThrow(
        "createWorker: parking: unknown option `limit`; the options are limitMs, delayMs, maxDelayMs.",
      );
    });
  },
);
