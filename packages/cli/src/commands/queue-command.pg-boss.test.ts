// `reportkit queue stats|failed|retry --db postgres://…`: the real binary (dist/cli.js, built
// here with tsc -b) against a real PostgreSQL server holding jobs a real pg-boss worker failed
// (and journaled).
import { defaultDedupeKey, parseReport, type Report } from "@reportkit/core";
import {
  createWorker,
  pgBossQueue,
  type QueueAdmin,
  queueAdmin,
  type ReportWorker,
  reportJobId,
} from "@reportkit/pg-boss";
import { postgresJournal } from "@reportkit/postgres";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR } from "../../../../test/fixtures/samples.js";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../../../../test/support/postgres-server.js";
import { buildCli, reportkit } from "../../../../test/support/reportkit-cli.js";

function report(payload: Record<string, unknown>): Report {
  const result = parseReport(payload);
  if (!result.ok) throw new Error(result.error.message);
  return result.report;
}

describe.runIf(requirePostgresServer("queue-command.pg-boss.test.ts"))(
  "reportkit queue --db (pg-boss)",
  { timeout: 60_000 },
  () => {
    const QUEUE = "cli-test";
    const DLR = report(SAMPLE_DLR);
    const CALL = report(SAMPLE_CALL);
    const dlrJob = reportJobId(defaultDedupeKey(DLR) ?? "");
    const callJob = reportJobId(defaultDedupeKey(CALL) ?? "");
    let server: PostgresServer;
    let jobs: QueueAdmin;
    let worker: ReportWorker;
    let healthy = false;
    const processed: string[] = [];

    beforeAll(async () => {
      buildCli();
      server = await startPostgresServer();
      jobs = queueAdmin({ connectionString: server.url, queueName: QUEUE });
      // A worker whose handlers fail (retried for 100 ms) until `healthy`: both reports end failed.
      worker = createWorker({
        connectionString: server.url,
        queueName: QUEUE,
        pollingIntervalMs: 20,
        retry: { delayMs: 20, maxDelayMs: 20, forMs: 100 },
        onError: () => {},
        onDelivery(r) {
          if (!healthy) throw new Error("CRM said 500:\n  try later");
          processed.push(r.id);
        },
        onCall(r) {
          if (!healthy) throw new Error("database is read-only");
          processed.push(r.mid ?? "");
        },
      });
      const queue = pgBossQueue({ connectionString: server.url, queueName: QUEUE });
      await queue.enqueue(DLR, defaultDedupeKey(DLR));
      await queue.enqueue(CALL, defaultDedupeKey(CALL));
      await queue.close();
      await vi.waitFor(async () => expect(await jobs.failed()).toHaveLength(2), {
        timeout: 20_000,
      });
    });
    afterAll(async () => {
      await worker?.close();
      await jobs?.close();
      await server?.close();
    });

    it("lists the failed jobs: id, report type and id, attempts, last error (one line)", async () => {
      const run = await reportkit(["queue", "failed", "--db", server.url, "--queue", QUEUE]);
      expect(run).toMatchObject({ code: 0, stderr: "" });
      const lines = run.stdout.trim().split("\n");
      expect(lines[0]).toMatch(/^JOB ID +TYPE +REPORT +ATTEMPTS +FAILED AT +LAST ERROR$/);
      const dlrLine = lines.find((line) => line.startsWith(dlrJob));
      expect(dlrLine).toMatch(
        / delivery +b34e35ad-.* +\d+ +\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ +CRM said 500: try later$/,
      );
      expect(lines.find((line) => line.startsWith(callJob))).toMatch(
        / call .* database is read-only$/,
      );
      expect(lines.at(-1)).toBe("2 failed jobs");
      // The same reports are in the inbox's journal, for `reportkit journal list` and replay.
      const journal = postgresJournal({ connectionString: server.url });
      const entries = await journal.list({ status: "failed" });
      await journal.close();
      expect(entries.map((e) => e.key).sort()).toEqual(
        [defaultDedupeKey(DLR), defaultDedupeKey(CALL)].sort(),
      );
    });

    it("counts the queue's jobs by state, and reads the URL from REPORTKIT_DB_URL", async () => {
      const run = await reportkit(["queue", "stats", "--db", server.url]);
      expect(run).toMatchObject({ code: 0, stderr: "" });
      expect(run.stdout.split("\n").map((line) => line.split(/\s+/).join(" "))).toEqual([
        "QUEUE WAITING ACTIVE DELAYED FAILED COMPLETED",
        `${QUEUE} 0 0 0 2 0`,
        "",
      ]);
      const json = await reportkit(["queue", "failed", "--queue", QUEUE, "--json"], {
        REPORTKIT_DB_URL: server.url,
      });
      expect(JSON.parse(json.stdout).data).toHaveLength(2);
      const other = await reportkit(["queue", "stats", "--db", server.url, "--schema", "other"]);
      expect(other.stdout).toBe("no queues in the schema other\n");
      const prefix = await reportkit(["queue", "stats", "--db", server.url, "--prefix", "bull"]);
      expect(prefix.stderr).toBe(
        "reportkit: --prefix is BullMQ's (with --redis); a pg-boss queue has --schema.\n",
      );
      const down = await reportkit([
        "queue",
        "failed",
        "--db",
        "postgres://u:secret@127.0.0.1:9/db",
      ]);
      expect(down.code).toBe(1);
      expect(down.stderr).toBe(
        "reportkit: reading the queue failed on Postgres at 127.0.0.1:9 (connect ECONNREFUSED 127.0.0.1:9).\n",
      );
    });

    it("puts one job back, then --all, and the worker processes them", async () => {
      healthy = true;
      const unknown = await reportkit([
        "queue",
        "retry",
        "nope",
        "--db",
        server.url,
        "--queue",
        QUEUE,
      ]);
      expect(unknown.stderr).toMatch(/^reportkit: no job "nope" in queue "cli-test"/);
      const one = await reportkit(["queue", "retry", dlrJob, "--db", server.url, "--queue", QUEUE]);
      expect(one).toMatchObject({ code: 0, stdout: `Put back job ${dlrJob}\n` });
      await vi.waitFor(() => expect(processed).toEqual([DLR.type === "delivery" ? DLR.id : ""]), {
        timeout: 15_000,
      });
      const again = await reportkit([
        "queue",
        "retry",
        dlrJob,
        "--db",
        server.url,
        "--queue",
        QUEUE,
      ]);
      expect(again.stderr).toMatch(/is completed, not failed; only failed jobs are put back/);
      const all = await reportkit([
        "queue",
        "retry",
        "--all",
        "--db",
        server.url,
        "--queue",
        QUEUE,
      ]);
      expect(all).toMatchObject({ code: 0, stdout: "Put back 1 failed job\n" });
      await vi.waitFor(() => expect(processed).toHaveLength(2), { timeout: 15_000 });
      // Processed: their journal entries are resolved in the same commit.
      const journal = postgresJournal({ connectionString: server.url });
      const failed = await journal.list({ status: "failed" });
      await journal.close();
      expect(failed).toEqual([]);
    });
  },
);
