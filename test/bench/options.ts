// The bench's command line (see run.ts) and the plan it makes of it: how many rounds, how
// long each run, how many connections, which modes, which base tree.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const here = dirname(fileURLToPath(import.meta.url));
/** Where servers/ and micro.mjs are run from (see BENCH_DIR in run.ts). */
export const benchDir = process.env.BENCH_DIR ?? here;
const args = process.argv.slice(2);
export const smoke = args.includes("--smoke");
export const quick = smoke || args.includes("--quick");
export const profile = args.includes("--profile");
export const only = args.find((a) => a.startsWith("--only="))?.slice("--only=".length);
export const withMicro = !args.includes("--no-micro");

/**
 * How the servers of one comparison are loaded in a round: all together, for the same second,
 * on the servers' one CPU ("concurrent"); or one at a time, each for the same time, alone on
 * that CPU with the load generator on the other, as a receiver runs in production, one process
 * per core ("sequential").
 */
export type Mode = "concurrent" | "sequential";
const sequentialOnly = args.includes("--sequential");
const concurrentOnly = args.includes("--concurrent");
/** The modes this run measures, each in every round: both unless one is asked for. */
export const MODES: readonly Mode[] = sequentialOnly
  ? ["sequential"]
  : concurrentOnly
    ? ["concurrent"]
    : ["concurrent", "sequential"];

const baseArg = args.find((a) => a.startsWith("--base="))?.slice("--base=".length);
/**
 * --base=<dir>: the root of a built copy of another tree (a git worktree with its dependencies
 * installed and `tsc -b` run). Each reportkit server is run from there as well as from here, in
 * the same rounds, for a before/after in one run.
 */
export const baseDir = baseArg === undefined ? undefined : checkedBase(resolve(baseArg));

function checkedBase(dir: string): string {
  const missing = [
    join(dir, "test", "bench", "servers", "server.mjs"),
    join(dir, "test", "bench", "micro.mjs"),
    join(dir, "packages", "core", "dist", "index.js"),
    join(dir, "test", "node_modules", "@reportkit", "core"),
  ].filter((path) => !existsSync(path));
  if (missing.length > 0) {
    console.error(
      `--base=${dir} is not a built reportkit tree: ${missing.join(", ")} not found. Make one with \`git worktree add ${dir} <rev> && (cd ${dir} && npx -y pnpm@10.34.9 install --frozen-lockfile && npx tsc -b)\`.`,
    );
    process.exit(2);
  }
  return dir;
}

const FLAGS = ["--quick", "--smoke", "--profile", "--no-micro", "--sequential", "--concurrent"];

/**
 * Exits with what is wrong when run.ts's command line has an option it does not know, or asks
 * for both modes alone. Called by run.ts, not on import: the other tools of this folder
 * (instructions.ts) read the same plan with command lines of their own.
 */
export function checkArguments(): void {
  const unknown = args.filter(
    (a) => !FLAGS.includes(a) && !a.startsWith("--only=") && !a.startsWith("--base="),
  );
  if (unknown.length > 0) {
    console.error(
      `Unknown option ${unknown.join(" ")}. Use --quick, --smoke, --only=<text>, --no-micro, --profile, --sequential, --concurrent, --base=<dir>.`,
    );
    process.exit(2);
  }
  if (sequentialOnly && concurrentOnly) {
    console.error(
      "--sequential and --concurrent each run one mode only: give neither to run both.",
    );
    process.exit(2);
  }
}

/**
 * Seconds. Short runs, many rounds: a ratio of two runs seconds apart moves less with the
 * machine's other load than one of long runs minutes apart. The full run (both modes) stays
 * under about 20 minutes on 2 cores, --quick under 1. `budgetMin` counts from the run's start.
 */
export const PLAN = quick
  ? { minRounds: 1, maxRounds: 1, duration: 0.3, warmup: 0.3, extraWarmup: 0.2, budgetMin: 1 }
  : {
      minRounds: 8,
      maxRounds: 24,
      duration: 1,
      warmup: 2,
      extraWarmup: 1,
      budgetMin: MODES.length === 2 ? 16 : 9,
    };
/** Rounds stop once every headline ratio's half interquartile range is within this share. */
export const TARGET_HALF_IQR = 0.05;
export const CONNECTIONS = 10;
