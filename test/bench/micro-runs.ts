// micro.mjs's runs: the micro-benchmarks of @reportkit/core, each in a fresh process, and the
// memory of one receiver.
import { join } from "node:path";
import { benchDir, quick } from "./options.js";
import { LineProcess } from "./processes.js";
import { FIXTURES } from "./scenarios.js";
import type { MicroResult } from "./statistics.js";

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
        { BENCH_FIXTURES: JSON.stringify({ ...FIXTURES, quick }) },
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
  const env = { BENCH_FIXTURES: JSON.stringify({ ...FIXTURES, quick }) };
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
