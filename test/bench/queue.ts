// Queue mode in `pnpm bench`: the 202 path of a receiver with `queue` through each adapter, on
// BullMQ (a real redis-server) and on pg-boss (a real PostgreSQL), loaded in the same rounds,
// and each store's worker's throughput at concurrency 1 and 16. Called by run.ts after the
// other HTTP runs; nothing here fails on a timing, only on a wrong answer (a non-2xx, a 2xx
// whose job the store did not acknowledge, a worker that lost reports).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { bullmqQueue } from "@reportkit/bullmq";
import { defaultDedupeKey, parseReport } from "@reportkit/core";
import type { ReportQueue } from "@reportkit/core/adapter";
import { pgBossQueue } from "@reportkit/pg-boss";
import { SAMPLE_DLR } from "../fixtures/samples.js";
import {
  hasPostgresServer,
  type PostgresServer,
  startPostgresServer,
} from "../support/postgres-server.js";
import { hasRedisServer, type RedisServer, startRedisServer } from "../support/redis-server.js";
import { LineProcess, type Pinning, SERVER_READY_MS } from "./processes.js";
import { DLR, FIXTURES } from "./scenarios.js";
import { median, type Row, type RunResult, summarize } from "./statistics.js";
import { httpTable } from "./tables.js";

export interface QueuePlan {
  /** The frameworks' modules to measure (express, fastify, hono). */
  readonly frameworks: readonly string[];
  readonly quick: boolean;
  readonly rounds: number;
  readonly duration: number;
  readonly warmup: number;
  readonly connections: number;
}

export interface QueueBenchResult {
  readonly markdown: string[];
  readonly failed: boolean;
}

const FRAMEWORKS = [
  { label: "Express 5", module: "express" },
  { label: "Fastify 5", module: "fastify" },
  { label: "Hono 4 (node-server)", module: "hono" },
] as const;
export const QUEUED_SCENARIO = "DLR, queued (202)";
const CONCURRENCIES = [1, 16] as const;

/** Where queue mode keeps its jobs: the server's label, and the worker's. */
interface Store {
  readonly kind: "bullmq" | "pg-boss";
  /** The "Server" column of the HTTP table (BullMQ's rows keep the label they always had). */
  readonly server: "reportkit" | "reportkit, pg-boss";
  readonly worker: string;
  /** The environment of its servers and workers. */
  readonly env: Record<string, string>;
  /** A queue of it, as a receiver has one. */
  open(queueName: string): ReportQueue & { close(): Promise<void> };
}

export async function queueBench(
  benchDir: string,
  plan: QueuePlan,
  pinning: Pinning,
): Promise<QueueBenchResult> {
  if (!hasRedisServer && !hasPostgresServer) {
    return {
      markdown: [
        "## Queue mode",
        "",
        "Not measured: neither redis-server nor PostgreSQL is installed here.",
        "",
      ],
      failed: false,
    };
  }
  let redis: RedisServer | undefined;
  let postgres: PostgresServer | undefined;
  const stores: Store[] = [];
  const children: LineProcess[] = [];
  let failed = false;
  const fail = (message: string) => {
    console.error(message);
    failed = true;
  };
  const skipped: string[] = [];
  try {
    if (hasRedisServer) {
      redis = await startRedisServer();
      const { url } = redis;
      stores.push({
        kind: "bullmq",
        server: "reportkit",
        worker: "createWorker",
        env: { BENCH_REDIS_URL: url },
        open: (queueName) => bullmqQueue({ connection: url, queueName }),
      });
    } else skipped.push("Not measured: BullMQ (redis-server is not installed here).");
    if (hasPostgresServer) {
      postgres = await startPostgresServer();
      const { url } = postgres;
      stores.push({
        kind: "pg-boss",
        server: "reportkit, pg-boss",
        worker: "createWorker (pg-boss)",
        env: { BENCH_DATABASE_URL: url, BENCH_QUEUE_STORE: "pg-boss" },
        open: (queueName) => pgBossQueue({ connectionString: url, queueName }),
      });
    } else skipped.push("Not measured: pg-boss (PostgreSQL is not installed here).");
    // --- the receiver's 202 path ---------------------------------------------------------
    const servers = await Promise.all(
      stores.flatMap((store) =>
        FRAMEWORKS.filter((fw) => plan.frameworks.includes(fw.module)).map(async (fw) => {
          const proc = new LineProcess(
            `${fw.label} queue-mode server (${store.kind})`,
            [
              ...pinning.server,
              process.execPath,
              join(benchDir, "servers", "queue-server.mjs"),
              fw.module,
            ],
            {
              ...store.env,
              BENCH_TOKEN: FIXTURES.token,
              BENCH_QUEUE: `bench-http-${fw.module}`,
              NODE_ENV: "production",
            },
          );
          children.push(proc);
          const { port } = await proc.next<{ port: number }>(SERVER_READY_MS, "its port");
          return { fw, store, proc, port, sanity2xx: 0 };
        }),
      ),
    );
    for (const server of servers) {
      const res = await fetch(`http://127.0.0.1:${server.port}${DLR.path}`, {
        method: DLR.method,
        headers: DLR.headers,
        body: DLR.body,
      });
      const text = await res.text();
      if (res.status !== 202 || text !== '{"ok":true,"queued":true}') {
        throw new Error(
          `${server.fw.label} queue mode (${server.store.kind}): expected 202 queued, got ${res.status} ${text}`,
        );
      }
      server.sanity2xx++;
    }

    const loader = new LineProcess(
      "load generator",
      [...pinning.loader, process.execPath, join(benchDir, "loader.mjs")],
      {},
    );
    children.push(loader);
    let job = 0;
    const load = async (server: (typeof servers)[number], duration: number) => {
      const id = ++job;
      const cpuBefore = cpuTicks(server.proc.child.pid);
      const wallBefore = performance.now();
      loader.send({
        id,
        url: `http://127.0.0.1:${server.port}${DLR.path}`,
        method: DLR.method,
        headers: DLR.headers,
        body: Buffer.from(DLR.body ?? new Uint8Array()).toString("base64"),
        connections: plan.connections,
        duration,
      });
      const result = await loader.next<RunResult & { id: number; error?: string }>(
        duration * 1000 + 30_000,
      );
      if (result.error !== undefined) throw new Error(`load generator: ${result.error}`);
      const cpuAfter = cpuTicks(server.proc.child.pid);
      if (cpuBefore !== undefined && cpuAfter !== undefined) {
        const seconds = (cpuAfter - cpuBefore) / 100;
        result.serverCpu = seconds / ((performance.now() - wallBefore) / 1000);
        if (result.requests > 0) result.serverCpuPerRequest = (seconds * 1e6) / result.requests;
      }
      return result;
    };

    const rows = new Map<(typeof servers)[number], Row>();
    for (const server of servers) {
      const row: Row = {
        framework: server.fw.label,
        tree: "current",
        server: server.store.server,
        scenario: QUEUED_SCENARIO,
        runs: [],
        warmups: [],
      };
      rows.set(server, row);
      console.error(`warm-up: ${row.framework} queue mode (${server.store.kind})`);
      row.warmups.push(await load(server, plan.warmup));
    }
    for (let round = 1; round <= plan.rounds; round++) {
      const order = round % 2 === 0 ? [...servers].reverse() : servers;
      for (const server of order) {
        const result = await load(server, plan.duration);
        rows.get(server)?.runs.push(result);
        console.error(
          `round ${round}/${plan.rounds}: ${server.fw.label} queue mode (${server.store.kind}): ${Math.round(result.rps)} req/s${result.non2xx > 0 ? `, ${result.non2xx} non-2xx` : ""}`,
        );
      }
    }
    await loader.stop();
    for (const [server, row] of rows) {
      const final = await server.proc.stop<{ handled?: number }>();
      const s = summarize(row);
      const counted = server.sanity2xx + s.ok2xx;
      if (final?.handled === undefined || final.handled < counted) {
        fail(
          `${row.framework} queue mode (${server.store.kind}): answered ${counted} requests 2xx but the store acknowledged ${final?.handled ?? "?"} adds.`,
        );
      }
      if (s.non2xx + s.failures > 0) {
        fail(
          `${row.framework} queue mode (${server.store.kind}): ${s.non2xx} non-2xx, ${s.failures} errors/timeouts.`,
        );
      }
    }

    // --- the worker ----------------------------------------------------------------------
    const count = plan.quick ? 500 : 5000;
    const workerRounds = plan.quick ? 1 : 3;
    const throughput: { store: Store; concurrency: number; runs: number[] }[] = [];
    for (const store of stores) {
      for (const concurrency of CONCURRENCIES) {
        const runs: number[] = [];
        for (let round = 1; round <= workerRounds; round++) {
          const queueName = `bench-worker-${concurrency}-${round}`;
          await fill(store.open(queueName), queueName, count);
          const proc = new LineProcess(
            `worker (${store.kind}, concurrency ${concurrency})`,
            [...pinning.server, process.execPath, join(benchDir, "servers", "queue-worker.mjs")],
            {
              ...store.env,
              BENCH_QUEUE: queueName,
              BENCH_CONCURRENCY: String(concurrency),
              BENCH_COUNT: String(count),
            },
          );
          children.push(proc);
          // pg-boss's worker, a transaction per report, drains 100-200 reports/s at concurrency 1
          // on a shared 2-core VM: 20 ms a report past the first two minutes.
          const result = await proc.next<{ handled: number; reportsPerSecond: number }>(
            120_000 + count * 20,
          );
          await proc.stop();
          if (result.handled !== count) {
            fail(
              `worker (${store.kind}, concurrency ${concurrency}): ${result.handled} of ${count} reports handled.`,
            );
          }
          console.error(
            `worker (${store.kind}), concurrency ${concurrency}, round ${round}/${workerRounds}: ${Math.round(result.reportsPerSecond)} reports/s`,
          );
          runs.push(result.reportsPerSecond);
        }
        throughput.push({ store, concurrency, runs });
      }
    }

    const int = (n: number) => Math.round(n).toLocaleString("en-US");
    return {
      failed,
      markdown: [
        "## Queue mode",
        "",
        ...skipped.flatMap((line) => [line, ""]),
        "A receiver with `queue` answers 202 once the store has the job: **reportkit** is `bullmqQueue(...)` (Redis acknowledged the add; one redis-server, no persistence), **reportkit, pg-boss** is `pgBossQueue(...)` (Postgres committed the job's INSERT; one PostgreSQL, fsync off). Neither database is pinned: they share the CPUs with the servers and the load generator, and their own work is not in the server's CPU. Each request gets a unique dedupe key, so every 202 is a new job, not a duplicate found. Same load as above, for the plan's minimum number of rounds; the servers of both stores take turns in each round.",
        "",
        httpTable([...rows.values()]),
        "",
        `Each worker (a handler that does nothing) draining ${int(count)} queued DLRs, in its own process on the servers' CPU: reports/s between the first and the last handler call, median of ${workerRounds} run${workerRounds === 1 ? "" : "s"}. pg-boss's worker runs each report in the Postgres inbox's transaction (the claim, the job's completion and the commit: three round trips) after fetching it.`,
        "",
        "| Worker | concurrency | reports | reports/s (median) | runs |",
        "| --- | ---: | ---: | ---: | --- |",
        ...throughput.map(
          (t) =>
            `| ${t.store.worker} | ${t.concurrency} | ${int(count)} | ${int(median(t.runs))} | ${t.runs.map(int).join(", ")} |`,
        ),
        "",
      ],
    };
  } finally {
    for (const child of children) child.kill();
    await redis?.close();
    await postgres?.close();
  }
}

/**
 * Adds `count` DLRs to `queue`, as a receiver would, then closes it. Their ids are new for each
 * queue: pg-boss's worker would find the reports of an earlier round processed already (its
 * inbox is the database's) and complete their jobs without calling the handler.
 */
async function fill(
  queue: ReportQueue & { close(): Promise<void> },
  queueName: string,
  count: number,
): Promise<void> {
  const parsed = parseReport(SAMPLE_DLR);
  if (!parsed.ok || parsed.report.type !== "delivery") throw new Error("the sample DLR");
  const report = parsed.report;
  try {
    for (let start = 0; start < count; start += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, count - start) }, (_, i) => {
          const id = `${report.id}-${queueName}-${start + i}`;
          const each = { ...report, id };
          return queue.enqueue(each, defaultDedupeKey(each));
        }),
      );
    }
  } finally {
    await queue.close();
  }
}

/** User + system CPU ticks of a process so far, from /proc (Linux); undefined elsewhere. */
function cpuTicks(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}
