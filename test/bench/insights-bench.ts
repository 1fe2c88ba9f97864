// npx tsx --conditions=source test/bench/insights-bench.ts [--messages=1000000] [--days=30]
//
// The insights' queries on a generated ledger (insights-ledger.ts): a PostgreSQL server of its
// own (test/support/postgres-server.ts, default settings but fsync off), `messages` message rows
// over `days` days, then each query over the whole ledger, the last 7 days, the last day, and
// the whole ledger filtered by an operator and by a campaign tag. Two figures per query, each of
// 5 runs: the Postgres backend's own CPU time per run, with parallel workers off (what the query
// costs, whatever else the machine runs: an idle core answers in about that time), and the
// median wall-clock time with Postgres's default parallelism (which a loaded shared machine
// stretches). Printed as a markdown table for docs/performance.md. A tool, not a test: nothing
// here fails on a timing.
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import {
  callsByDay,
  creditsByDay,
  deliveryLatency,
  deliveryRateBy,
  failuresBy,
  type InsightsQuery,
  messageSummary,
  messagesByDay,
  optOutsByDay,
  optOutsBySender,
  readInsights,
} from "@reportkit/postgres/insights";
import pg from "pg";
import { startPostgresServer } from "../support/postgres-server.js";
import { generateLedger } from "./insights-ledger.js";

const arg = (name: string, fallback: number) => {
  const given = process.argv.find((a) => a.startsWith(`--${name}=`));
  return given === undefined ? fallback : Number(given.slice(name.length + 3));
};
const MESSAGES = arg("messages", 1_000_000);
const DAYS = arg("days", 30);
const LAST_DAY = "2026-11-30";
const RUNS = 5;

const dayBefore = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);

const RANGES: [string, InsightsQuery][] = [
  [`all ${DAYS} days`, { from: dayBefore(LAST_DAY, DAYS - 1), to: LAST_DAY }],
  ["last 7 days", { from: dayBefore(LAST_DAY, 6), to: LAST_DAY }],
  ["last day", { from: LAST_DAY, to: LAST_DAY }],
  [
    `all ${DAYS} days, provider Jio`,
    { from: dayBefore(LAST_DAY, DAYS - 1), to: LAST_DAY, provider: "Jio" },
  ],
  [
    `all ${DAYS} days, custom1 campaign-7`,
    { from: dayBefore(LAST_DAY, DAYS - 1), to: LAST_DAY, custom1: "campaign-7" },
  ],
];

type Query = (db: pg.Pool, q: InsightsQuery) => Promise<unknown>;
const range = (q: InsightsQuery) => ({ from: q.from, to: q.to });
const QUERIES: [string, Query, boolean][] = [
  ["messageSummary", messageSummary, true],
  ["messagesByDay", messagesByDay, true],
  ["deliveryRateBy provider", (db, q) => deliveryRateBy(db, "provider", q), true],
  ["deliveryRateBy region", (db, q) => deliveryRateBy(db, "region", q), true],
  ["deliveryRateBy custom1", (db, q) => deliveryRateBy(db, "custom1", q), true],
  ["failuresBy reason", (db, q) => failuresBy(db, "reason", q), true],
  ["failuresBy status", (db, q) => failuresBy(db, "status", q), true],
  ["deliveryLatency day", (db, q) => deliveryLatency(db, "day", q), true],
  ["deliveryLatency provider", (db, q) => deliveryLatency(db, "provider", q), true],
  ["creditsByDay", creditsByDay, true],
  ["callsByDay", (db, q) => callsByDay(db, range(q)), false],
  ["optOutsByDay", (db, q) => optOutsByDay(db, range(q)), false],
  ["optOutsBySender", (db, q) => optOutsBySender(db, range(q)), false],
  // The page's one request: every query above (one connection here: one after the other).
  ["readInsights (all of them)", readInsights, true],
];

/** The CPU time (user + system) a process has used, in ms (Linux, 100 ticks a second). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The backend's CPU per run, serial; the median wall-clock time, parallel. */
async function time(db: pg.Pool, backend: number, run: () => Promise<unknown>) {
  await db.query("SET max_parallel_workers_per_gather = 0");
  const before = cpuMs(backend);
  for (let i = 0; i < RUNS; i++) await run();
  const cpu = (cpuMs(backend) - before) / RUNS;
  await db.query("RESET max_parallel_workers_per_gather");
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await run();
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  return { cpu, wall: ms[Math.floor(RUNS / 2)] as number };
}

const server = await startPostgresServer();
const pool = new pg.Pool({ connectionString: server.url, max: 1 });
try {
  const generating = performance.now();
  await generateLedger(pool, { messages: MESSAGES, days: DAYS, lastDay: LAST_DAY });
  const { rows } = await pool.query(
    "SELECT pg_size_pretty(pg_total_relation_size('reportkit_message_status')) AS size, version() AS version",
  );
  console.log(
    `${MESSAGES} messages over ${DAYS} days generated in ${((performance.now() - generating) / 1000).toFixed(1)} s; the table with its indexes: ${rows[0].size}; ${rows[0].version}`,
  );
  const backend = (await pool.query("SELECT pg_backend_pid() AS pid")).rows[0].pid as number;
  const load = () => loadavg()[0]?.toFixed(1);
  console.log(`load average before: ${load()}`);
  const header = ["query", ...RANGES.map(([name]) => name)];
  console.log(`\n| ${header.join(" | ")} |\n|---|${RANGES.map(() => "---:").join("|")}|`);
  let most = 0;
  for (const [name, query, filtered] of QUERIES) {
    const cells: string[] = [];
    for (const [, q] of RANGES) {
      if (!filtered && (q.provider !== undefined || q.custom1 !== undefined)) {
        cells.push("–");
        continue;
      }
      const { cpu, wall } = await time(pool, backend, () => query(pool, q));
      most = Math.max(most, cpu);
      cells.push(`${Math.round(cpu)} (${Math.round(wall)})`);
    }
    console.log(`| ${name} | ${cells.join(" | ")} |`);
  }
  console.log(
    `\nms: the backend's CPU per run, serial (the median wall-clock time, parallel); most CPU: ${Math.round(most)} ms; load average after: ${load()}`,
  );
} finally {
  await pool.end();
  await server.close();
}
