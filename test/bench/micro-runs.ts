// micro.mjs's runs: the micro-benchmarks of @reportkit/core, each in a fresh process, core's
// `handle` per DLR from this tree and a base tree, and the memory of one receiver.
import { join } from "node:path";
import { shuffled } from "./http-load.js";
import { baseDir, benchDir, quick } from "./options.js";
import { LineProcess } from "./processes.js";
import { FIXTURES } from "./scenarios.js";
import { type MicroResult, type Spread, spread, type Tree } from "./statistics.js";

/** What micro.mjs's processes are given: the fixtures, and the token the servers get too. */
const MICRO_ENV = {
  BENCH_FIXTURES: JSON.stringify({ ...FIXTURES, quick }),
  BENCH_TOKEN: FIXTURES.token,
};

/** What micro.mjs --memory measured: one receiver's RSS after a few and after many requests. */
export interface MemoryResult {
  readonly label: string;
  readonly small: number;
  readonly large: number;
  readonly rssSmall: number;
  readonly rssLarge: number;
  readonly heapSmall: number;
  readonly heapLarge: number;
  readonly keysSmall: number;
  readonly keysLarge: number;
  /** The young generation: V8's default (grows), or pre-sized. */
  readonly young?: "default" | "presized";
}

/**
 * V8's young generation: by default it starts small and grows (up to 16 MB per semi-space)
 * as a process allocates, whatever keeps memory or not; pre-sized, the same generation from
 * the start, so that RSS growth is what the receiver itself keeps.
 */
const YOUNG_GENERATION = {
  default: [],
  presized: ["--min-semi-space-size=16"],
} as const;

export async function runMemory(pin: string[]): Promise<MemoryResult[]> {
  const results: MemoryResult[] = [];
  for (const young of ["default", "presized"] as const) {
    for (const variant of ["default", "off"]) {
      const proc = new LineProcess(
        "memory benchmark",
        [
          ...pin,
          process.execPath,
          "--expose-gc",
          ...YOUNG_GENERATION[young],
          join(benchDir, "micro.mjs"),
          "--memory",
          variant,
        ],
        MICRO_ENV,
      );
      const result = await proc.next<MemoryResult>(300_000);
      results.push({ ...result, young });
      await proc.stop();
    }
  }
  return results;
}

/** Each micro-benchmark in a fresh process (see micro.mjs), one after the other. */
export async function runMicro(pin: string[]): Promise<MicroResult[]> {
  const script = join(benchDir, "micro.mjs");
  const env = MICRO_ENV;
  if (quick) {
    const all = new LineProcess(
      "micro-benchmarks",
      [...pin, process.execPath, script, "--all"],
      env,
    );
    const results = await all.next<MicroResult[]>(60_000);
    await all.stop();
    return results;
  }
  const lister = new LineProcess("micro-benchmarks", [process.execPath, script, "--list"], env);
  const names = await lister.next<string[]>(30_000);
  await lister.stop();
  const results: MicroResult[] = [];
  for (const [index, name] of names.entries()) {
    const proc = new LineProcess(
      `micro-benchmark "${name}"`,
      [...pin, process.execPath, script, String(index)],
      env,
    );
    results.push(await proc.next<MicroResult>(60_000));
    await proc.stop();
  }
  return results;
}

/** The micro-benchmark both trees name alike: core's whole path for one JSON DLR. */
export const HANDLE_DLR = "Receiver.handle: DLR, JSON string body";

/** Core's `handle` per DLR, in µs of CPU, from each tree measured. */
export interface HandleCosts {
  readonly trees: readonly { readonly tree: Tree; readonly micros: Spread }[];
  /** Per round, the base tree's µs / this tree's (above 1: this tree costs less); with --base. */
  readonly change: Spread | undefined;
  /** DLRs per process and measurement. */
  readonly iterations: number;
  /** What kept a tree from being measured. */
  readonly errors: readonly string[];
}

/**
 * Core's `handle` for a DLR with a new id each time, in fresh processes, `micro.mjs --iterations`
 * (the process's CPU time over n calls, which moves less on a shared machine than tinybench's
 * elapsed time): this tree, and with --base the base tree's own micro.mjs, the two in turn,
 * in an order of each round's own.
 */
export async function runHandleCosts(pin: string[]): Promise<HandleCosts> {
  const scripts = new Map<Tree, string>([["current", join(benchDir, "micro.mjs")]]);
  if (baseDir !== undefined) scripts.set("base", join(baseDir, "test", "bench", "micro.mjs"));
  const iterations = quick ? 20_000 : 200_000;
  const rounds = quick ? 1 : 7;
  const errors: string[] = [];
  const indexes = new Map<Tree, number>();
  for (const [tree, script] of scripts) {
    const lister = new LineProcess(
      `micro-benchmarks (${tree} tree)`,
      [process.execPath, script, "--list"],
      MICRO_ENV,
    );
    const names = await lister.next<string[]>(30_000);
    await lister.stop();
    const index = names.indexOf(HANDLE_DLR);
    if (index === -1) errors.push(`the ${tree} tree's micro.mjs has no task "${HANDLE_DLR}".`);
    else indexes.set(tree, index);
  }
  const perRound: Map<Tree, number>[] = [];
  for (let round = 1; round <= rounds; round++) {
    const micros = new Map<Tree, number>();
    for (const [tree, index] of shuffled([...indexes], round)) {
      const proc = new LineProcess(
        `core's handle per DLR (${tree} tree)`,
        [
          ...pin,
          process.execPath,
          scripts.get(tree) as string,
          "--iterations",
          String(index),
          String(iterations),
        ],
        MICRO_ENV,
      );
      try {
        const { cpuNsPerOp } = await proc.next<{ cpuNsPerOp: number }>(300_000);
        micros.set(tree, cpuNsPerOp / 1000);
      } catch (error) {
        // Said in the report, and that tree not measured again: the other one still is.
        errors.push(error instanceof Error ? error.message : String(error));
        indexes.delete(tree);
      }
      await proc.stop();
    }
    perRound.push(micros);
  }
  const of = (tree: Tree) => perRound.map((m) => m.get(tree) ?? Number.NaN);
  return {
    trees: [...indexes.keys()].map((tree) => ({ tree, micros: spread(of(tree)) })),
    change: indexes.has("base")
      ? spread(
          perRound.map((m) => (m.get("base") ?? Number.NaN) / (m.get("current") ?? Number.NaN)),
        )
      : undefined,
    iterations,
    errors,
  };
}
