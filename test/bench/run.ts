// pnpm bench [--quick | --smoke] [--only=<text>] [--no-micro] [--profile]
//            [--sequential | --concurrent] [--base=<dir>]
//
// reportkit against the bare framework and a hand-written receiver, side by side, in one run:
// every server in its own process, the load generator in another. Each round runs every
// configuration once in each mode, a framework's configurations back to back (so a ratio
// compares runs a few seconds apart, under the same load from the rest of the machine),
// frameworks and configurations in a different order each round; a ratio is computed within
// each round, and rounds go on until the interquartile range of every headline ratio is within
// ±5% (or the round or time budget is spent). Cost is the server's own CPU time per request,
// read from its process.cpuUsage() before and after each run. Every request carries a report id
// of its own (loader.mjs), so reportkit's default in-memory dedupe store claims and completes a
// key each time. Prints a markdown report and (except with --quick, --only, one mode or --base)
// writes test/bench/RESULTS.md. Benchmarks are a tool, not tests: nothing here fails on a
// timing, only on a wrong answer.
//
// Two modes (options.ts): concurrent loads the servers of one comparison together on the
// servers' CPU; sequential loads them one at a time, each alone on that CPU, as a receiver runs
// with one process per core. Each has its own rows and its own control (the bare server's
// second process); the sequential mode loads the headline comparisons (DLR and call report)
// only. --sequential or --concurrent runs one of them.
//
// --base=<dir> (a built copy of another tree) runs each reportkit server from that tree too,
// in the same blocks as its twin from this one, and reports both against the floor and against
// each other; and core's `handle` per DLR from both trees, in alternating processes.
//
// BENCH_DIR=<dir> runs the servers and micro-benchmarks from a copy of this folder instead
// (servers/, micro.mjs with its micro-*.mjs, and a node_modules that resolves @reportkit/* to
// scratch builds): the way to measure a proposed fix to core or an adapter before making it.
// Nothing is recorded.
//
// This file runs the bench. The command line is read in options.ts; server-plan.ts says which
// servers run, http-load.ts starts and loads them, rounds.ts runs a round in one mode,
// micro-runs.ts runs micro.mjs; the figures are summarized in statistics.ts and
// comparisons.ts, and written as markdown by tables.ts and results-report.ts. Queue mode is
// queue.ts.

import { mkdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { type PostgresServer, startPostgresServer } from "../support/postgres-server.js";
import { type RedisServer, startRedisServer } from "../support/redis-server.js";
import {
  loadTogether,
  type RunningServer,
  sanityCheck,
  startIdleProcess,
  startServer,
} from "./http-load.js";
import {
  type HandleCosts,
  type MemoryResult,
  runHandleCosts,
  runMemory,
  runMicro,
} from "./micro-runs.js";
import {
  baseDir,
  benchDir,
  CONNECTIONS,
  checkArguments,
  here,
  MODES,
  type Mode,
  only,
  PLAN,
  profile,
  quick,
  TARGET_HALF_IQR,
  withMicro,
} from "./options.js";
import { choosePinning, LineProcess, STARTING_AT_ONCE, settledInTurn } from "./processes.js";
import { queueBench } from "./queue.js";
import { type NextTickCost, resultsReport, writeResults } from "./results-report.js";
import { runRound, widestDecidingIqr } from "./rounds.js";
import { CALL, DLR, type Scenario } from "./scenarios.js";
import { FRAMEWORKS, plan, serverLabel } from "./server-plan.js";
import { type MicroResult, type Row, type RunResult, summarize } from "./statistics.js";

async function main(): Promise<number> {
  checkArguments();
  const started = Date.now();
  const date = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const loadAtStart = loadavg()[0] ?? 0;
  const pinning = choosePinning();
  const { servers: specs, notes } = await plan();
  for (const note of notes) console.error(`note: ${note}`);

  let micro: MicroResult[] = [];
  let memoryResult: MemoryResult[] | undefined;
  let handleCosts: HandleCosts | undefined;
  if (withMicro) {
    console.error("micro-benchmarks of @reportkit/core ...");
    micro = await runMicro(pinning.server);
    console.error(
      `core's handle per DLR${baseDir === undefined ? "" : ", this tree and the base tree"} ...`,
    );
    handleCosts = await runHandleCosts(pinning.server);
    console.error("memory of one receiver ...");
    memoryResult = await runMemory(pinning.server);
  }

  const profileDir = join(here, "profiles");
  if (profile) mkdirSync(profileDir, { recursive: true });
  const running: RunningServer[] = [];
  const children: LineProcess[] = [];
  // One redis-server for the Redis store's servers (unpinned: it runs beside them).
  let redis: RedisServer | undefined;
  // One PostgreSQL cluster for the Postgres inbox's servers (unpinned, as Redis).
  let postgres: PostgresServer | undefined;
  const killAll = () => {
    for (const child of children) child.kill();
  };
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    process.on(signal, () => {
      killAll();
      // The databases too: they outlive a killed bench otherwise (a cluster left running).
      Promise.allSettled([redis?.close(), postgres?.close()]).then(() => process.exit(code));
    });
  }

  const rowsByMode = new Map<Mode, Row[]>(MODES.map((mode) => [mode, []]));
  const allRows = () => [...rowsByMode.values()].flat();
  let rounds = 0;
  const rowServer = new Map<Row, RunningServer>();
  const nextTicks: NextTickCost[] = [];
  const rowScenario = new Map<Row, Scenario>();
  let failed = false;
  try {
    if (specs.some((spec) => spec.variant === "reportkit-dedupe-redis")) {
      redis = await startRedisServer();
    }
    if (specs.some((spec) => spec.variant === "reportkit-dedupe-postgres")) {
      postgres = await startPostgresServer();
    }
    console.error(
      `starting ${specs.length} servers, ${STARTING_AT_ONCE} at a time (${pinning.description}) ...`,
    );
    const starts = await settledInTurn(specs, STARTING_AT_ONCE, async (spec) => {
      const server = await startServer(spec, pinning.server, profileDir, redis?.url, postgres?.url);
      console.error(`started: ${spec.framework} ${spec.variant} on port ${server.port}`);
      return server;
    });
    for (const result of starts) {
      if (result.status === "fulfilled") children.push(result.value.process);
    }
    const notStarted = starts.flatMap((result) =>
      result.status !== "rejected"
        ? []
        : [result.reason instanceof Error ? result.reason.message : String(result.reason)],
    );
    if (notStarted.length > 0) {
      throw new Error(
        `${notStarted.length} of ${specs.length} benchmark servers did not start:\n${notStarted.join("\n\n")}`,
      );
    }
    for (const result of starts) if (result.status === "fulfilled") running.push(result.value);
    for (const server of running) await sanityCheck(server);
    const idle = await startIdleProcess(pinning.server);
    children.push(idle);

    const loader = new LineProcess(
      "load generator",
      [...pinning.loader, process.execPath, join(here, "loader.mjs")],
      {},
    );
    children.push(loader);

    for (const server of running) {
      for (const [index, scenario] of server.spec.scenarios.entries()) {
        // A row per mode that loads this request (the sequential one: the headline only).
        const modeRows = MODES.filter(
          (mode) => mode === "concurrent" || scenario === DLR || scenario === CALL,
        ).map((mode) => {
          const row: Row = {
            framework: server.spec.framework,
            tree: server.spec.tree ?? "current",
            server: serverLabel(server.spec.variant),
            scenario: scenario.name,
            runs: [],
            warmups: [],
          };
          rowsByMode.get(mode)?.push(row);
          rowServer.set(row, server);
          rowScenario.set(row, scenario);
          return row;
        });
        const [first] = modeRows;
        if (first === undefined) continue;
        // The first request kind of each server gets the long warm-up (it compiles the path).
        const warmup = index === 0 ? PLAN.warmup : PLAN.extraWarmup;
        console.error(
          `warm-up: ${first.framework} ${first.server}${first.tree === "base" ? " (base tree)" : ""}, ${first.scenario}`,
        );
        const [result] = await loadTogether(loader, [{ server, scenario }], warmup);
        first.warmups.push(result as RunResult);
      }
    }

    const deadline = started + PLAN.budgetMin * 60_000;
    const targets = { server: rowServer, scenario: rowScenario };
    for (let round = 1; round <= PLAN.maxRounds; round++) {
      // Each mode every round, first in turn: the modes' ratios come from the same minutes.
      const modes = round % 2 === 0 ? [...MODES].reverse() : MODES;
      for (const mode of modes) {
        const rows = rowsByMode.get(mode) ?? [];
        await runRound(loader, mode, rows, targets, round, PLAN.duration);
      }
      rounds = round;
      if (round < PLAN.minRounds) continue;
      const widest = widestDecidingIqr(rowsByMode);
      console.error(`after round ${round}: widest headline IQR ±${(widest * 100).toFixed(1)}%`);
      if (!(widest > TARGET_HALF_IQR)) break;
      if (Date.now() > deadline) {
        console.error("time budget spent: stopping with the rounds so far");
        break;
      }
    }
    await loader.stop();
    await idle.stop();

    for (const server of running) {
      server.process.send({ cmd: "ticks" });
      const { ticks } = await server.process.next<{ ticks: number }>(10_000);
      nextTicks.push({ server: server.spec, ns: ticks });
    }

    // Every 2xx the load generator counted must have reached the server's handler.
    for (const server of running) {
      const final = await server.process.stop<{ handled?: number }>();
      const counted =
        server.sanity2xx +
        allRows()
          .filter((row) => rowServer.get(row) === server)
          .reduce((n, row) => n + summarize(row).ok2xx, 0);
      if (final?.handled === undefined || final.handled < counted) {
        console.error(
          `${server.spec.framework} ${server.spec.variant}${server.spec.tree === "base" ? " (base tree)" : ""}: answered ${counted} requests 2xx but its handler ran ${final?.handled ?? "?"} times.`,
        );
        failed = true;
      }
    }
  } catch (error) {
    killAll();
    throw error;
  } finally {
    await redis?.close();
    await postgres?.close();
  }

  for (const row of allRows()) {
    const s = summarize(row);
    if (s.non2xx + s.failures > 0) {
      console.error(
        `${row.framework} ${row.server}${row.tree === "base" ? " (base tree)" : ""}, ${row.scenario}: ${s.non2xx} non-2xx, ${s.failures} errors/timeouts.`,
      );
      failed = true;
    }
  }

  // Queue mode last, with the other servers stopped: its own servers, Redis and worker.
  let queueSection: string[] = [];
  if (only === undefined || "queue mode bullmq".includes(only.toLowerCase())) {
    const queue = await queueBench(
      benchDir,
      {
        frameworks: FRAMEWORKS.map((fw) => fw.module),
        quick,
        rounds: PLAN.minRounds,
        duration: PLAN.duration,
        warmup: PLAN.warmup,
        connections: CONNECTIONS,
      },
      pinning,
    );
    queueSection = queue.markdown;
    if (queue.failed) failed = true;
  }

  const text = resultsReport({
    date,
    loadAtStart,
    pinning: pinning.description,
    rounds,
    rowsByMode,
    nextTicks,
    micro,
    handleCosts,
    memory: memoryResult,
    queueSection,
    notes,
    minutes: ((Date.now() - started) / 60_000).toFixed(1),
  });
  console.log(text);

  // Only a full run of this tree as it is: both modes, every server, no base tree beside it.
  if (
    !quick &&
    only === undefined &&
    MODES.length === 2 &&
    baseDir === undefined &&
    !failed &&
    benchDir === here
  ) {
    const file = writeResults(text);
    console.error(`written to ${file}`);
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
