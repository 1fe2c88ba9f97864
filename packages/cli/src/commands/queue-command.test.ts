// `reportkit queue failed|retry`: the real binary (dist/cli.js, built here with tsc -b) against a
// real redis-server holding jobs a real worker failed.
import {
  bullmqQueue,
  createWorker,
  type QueueAdmin,
  queueAdmin,
  type ReportWorker,
  reportJobId,
} from "@reportkit/bullmq";
import { defaultDedupeKey, parseReport, type Report } from "@reportkit/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR } from "../../../../test/fixtures/samples.js";
import {
  type RedisServer,
  requireRedisServer,
  startRedisServer,
} from "../../../../test/support/redis-server.js";
import { buildCli, reportkit } from "../../../../test/support/reportkit-cli.js";

function report(payload: Record<string, unknown>): Report {
  const result = parseReport(payload);
  if (!result.ok) throw new Error(result.error.message);
  return result.report;
}

// Each test runs the binary several times (a second or more each on a loaded machine).
describe.runIf(requireRedisServer("queue-command.test.ts"))(
  "reportkit queue",
  { timeout: 60_000 },
  () => {
    const QUEUE = "cli-test";
    const DLR = report(SAMPLE_DLR);
    const CALL = report(SAMPLE_CALL);
    const dlrJob = reportJobId(defaultDedupeKey(DLR) ?? "");
    const callJob = reportJobId(defaultDedupeKey(CALL) ?? "");
    let redis: RedisServer;
    let jobs: QueueAdmin;
    let worker: ReportWorker;
    let healthy = false;
    const processed: string[] = [];

    beforeAll(async () => {
      buildCli();
      redis = await startRedisServer();
      jobs = queueAdmin({ connection: redis.url, queueName: QUEUE });
      // A worker whose handlers fail (one attempt each) until `healthy`: both reports end failed.
      worker = createWorker({
        connection: redis.url,
        queueName: QUEUE,
        attempts: 1,
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
      const queue = bullmqQueue({ connection: redis.url, queueName: QUEUE });
      await queue.enqueue(DLR, defaultDedupeKey(DLR));
      await queue.enqueue(CALL, defaultDedupeKey(CALL));
      await queue.close();
      await vi.waitFor(async () => expect((await jobs.failed()).length).toBe(2), {
        timeout: 10_000,
      });
    });

    afterAll(async () => {
      await worker?.close();
      await jobs?.close();
      await redis?.close();
    });

    it("lists the failed jobs: id, report type and id, attempts, last error (one line)", async () => {
      const run = await reportkit(["queue", "failed", "--redis", redis.url, "--queue", QUEUE]);
      expect(run).toMatchObject({ code: 0, stderr: "" });
      const lines = run.stdout.trim().split("\n");
      expect(lines[0]).toMatch(/^JOB ID\s+TYPE\s+REPORT\s+ATTEMPTS\s+FAILED AT\s+LAST ERROR$/);
      expect(lines).toHaveLength(4);
      const dlrLine = lines.find((l) => l.startsWith(dlrJob));
      expect(dlrLine).toMatch(
        /delivery\s+b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1\s+1\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\s+CRM said 500: try later$/,
      );
      expect(lines.find((l) => l.startsWith(callJob))).toMatch(
        /call\s+5f2b1a9c-3d4e-4f60-8a7b-9c0d1e2f3a4b\s+1\s+.*database is read-only$/,
      );
      expect(lines[3]).toBe("2 failed jobs");
    });

    it("counts each queue's jobs by state: stats, every queue found or one with --queue", async () => {
      // A second queue, with a report waiting (no worker on it).
      const other = bullmqQueue({ connection: redis.url, queueName: "cli-other" });
      await other.enqueue(DLR, defaultDedupeKey(DLR));
      await other.close();
      const all = await reportkit(["queue", "stats", "--redis", redis.url]);
      expect(all).toMatchObject({ code: 0, stderr: "" });
      expect(all.stdout.split("\n").map((line) => line.split(/\s+/).join(" "))).toEqual([
        "QUEUE WAITING ACTIVE DELAYED FAILED COMPLETED",
        "cli-other 1 0 0 0 0",
        "cli-test 0 0 0 2 0",
        "",
      ]);
      const one = await reportkit(["queue", "stats", "--queue", QUEUE, "--json"], {
        REPORTKIT_REDIS_URL: redis.url,
      });
      expect(one.code).toBe(0);
      expect(JSON.parse(one.stdout)).toEqual({
        data: [
          {
            queueName: QUEUE,
            prefix: "bull",
            waiting: 0,
            active: 0,
            delayed: 0,
            failed: 2,
            completed: 0,
          },
        ],
      });
      const none = await reportkit(["queue", "stats", "--redis", redis.url, "--prefix", "other"]);
      expect(none).toMatchObject({ code: 0, stdout: "no queues under the prefix other\n" });
      const down = await reportkit(["queue", "stats", "--redis", "redis://127.0.0.1:9"]);
      expect(down).toMatchObject({ code: 1, stdout: "" });
      expect(down.stderr).toBe(
        "reportkit: finding the queues failed on Redis at redis://127.0.0.1:9 (connect ECONNREFUSED 127.0.0.1:9).\n",
      );
    });

    it("prints JSON with --json, and reads the URL from REPORTKIT_REDIS_URL", async () => {
      const run = await reportkit(["queue", "failed", "--queue", QUEUE, "--json"], {
        REPORTKIT_REDIS_URL: redis.url,
      });
      expect(run.code).toBe(0);
      const { data } = JSON.parse(run.stdout);
      expect(data).toHaveLength(2);
      expect(data).toContainEqual(
        expect.objectContaining({
          jobId: dlrJob,
          type: "delivery",
          reportId: DLR.type === "delivery" ? DLR.id : "",
          attemptsMade: 1,
          failedReason: "CRM said 500:\n  try later",
        }),
      );
    });

    it("refuses unclear or impossible requests with one line and exit code 1", async () => {
      const noUrl = await reportkit(["queue", "failed"]);
      expect(noUrl).toMatchObject({ code: 1, stdout: "" });
      expect(noUrl.stderr).toBe(
        "reportkit: no queue: pass --redis (BullMQ, or set REPORTKIT_REDIS_URL, e.g. redis://127.0.0.1:6379) or --db (pg-boss, or set REPORTKIT_DB_URL, e.g. postgres://user:password@127.0.0.1:5432/app).\n",
      );
      const down = await reportkit(["queue", "failed", "--redis", "redis://127.0.0.1:9"]);
      expect(down.code).toBe(1);
      expect(down.stderr).toBe(
        "reportkit: reading the queue failed on Redis at redis://127.0.0.1:9 (connect ECONNREFUSED 127.0.0.1:9).\n",
      );
      const neither = await reportkit(["queue", "retry", "--redis", redis.url]);
      expect(neither).toMatchObject({ code: 1 });
      expect(neither.stderr).toMatch(/^reportkit: give the job id to put back .* or --all/);
      const both = await reportkit(["queue", "retry", dlrJob, "--all", "--redis", redis.url]);
      expect(both.stderr).toBe("reportkit: give a job id or --all, not both.\n");
      const twoStores = await reportkit([
        "queue",
        "failed",
        "--redis",
        redis.url,
        "--db",
        "postgres://h/db",
      ]);
      expect(twoStores.stderr).toBe(
        "reportkit: give --redis (a BullMQ queue) or --db (a pg-boss queue), not both.\n",
      );
      const schema = await reportkit(["queue", "failed", "--redis", redis.url, "--schema", "x"]);
      expect(schema.stderr).toBe(
        "reportkit: --schema is pg-boss's (with --db); a BullMQ queue has --prefix.\n",
      );
      const unknown = await reportkit([
        "queue",
        "retry",
        "rk-nope",
        "--redis",
        redis.url,
        "--queue",
        QUEUE,
      ]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/^reportkit: no job "rk-nope" in queue "cli-test"/);
      expect((await jobs.failed()).length).toBe(2);
    });

    it("puts one job back, then --all, and the worker processes them", async () => {
      healthy = true;
      const one = await reportkit([
        "queue",
        "retry",
        dlrJob,
        "--redis",
        redis.url,
        "--queue",
        QUEUE,
      ]);
      expect(one).toMatchObject({ code: 0, stdout: `Put back job ${dlrJob}\n` });
      await vi.waitFor(() => expect(processed).toEqual([DLR.type === "delivery" ? DLR.id : ""]), {
        timeout: 15_000,
      });
      const again = await reportkit([
        "queue",
        "retry",
        dlrJob,
        "--redis",
        redis.url,
        "--queue",
        QUEUE,
      ]);
      expect(again.stderr).toMatch(/job "rk-.*" is completed, not failed/);
      const all = await reportkit([
        "queue",
        "retry",
        "--all",
        "--redis",
        redis.url,
        "--queue",
        QUEUE,
      ]);
      expect(all).toMatchObject({ code: 0, stdout: "Put back 1 failed job\n" });
      await vi.waitFor(() => expect(processed).toHaveLength(2), { timeout: 15_000 });
      expect((await jobs.failed()).length).toBe(0);
      const none = await reportkit(["queue", "failed", "--redis", redis.url, "--queue", QUEUE]);
      expect(none).toMatchObject({ code: 0, stdout: "no failed jobs\n", stderr: "" });
    });
  },
);
