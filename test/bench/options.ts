// The bench's command line (see run.ts) and the plan it makes of it: how many rounds, how
// long each run, how many connections.
import { dirname } from "node:path";
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

const unknown = args.filter(
  (a) => !["--quick", "--smoke", "--profile", "--no-micro"].includes(a) && !a.startsWith("--only="),
);
if (unknown.length > 0) {
  console.error(
    `Unknown option ${unknown.join(" ")}. Use --quick, --smoke, --only=<text>, --no-micro, --profile.`,
  );
  process.exit(2);
}

/**
 * Seconds. Short runs, many rounds: a ratio of two runs seconds apart moves less with the
 * machine's other load than one of long runs minutes apart. The full run stays under about 10
 * minutes on 2 cores, --quick under 1.
 */
export const PLAN = quick
  ? { minRounds: 1, maxRounds: 1, duration: 0.3, warmup: 0.3, extraWarmup: 0.2, budgetMin: 1 }
  : { minRounds: 8, maxRounds: 24, duration: 1, warmup: 2, extraWarmup: 1, budgetMin: 9 };
/** Rounds stop once every headline ratio's half interquartile range is within this share. */
export const TARGET_HALF_IQR = 0.05;
export const CONNECTIONS = 10;
