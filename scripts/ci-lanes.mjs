// CI's lanes (.ci/run): `node scripts/ci-lanes.mjs main 22 24 26`.
// - `main`: the README's test command, `pnpm test` (typecheck, lint, every test, pack check),
//   on this machine's Node, counted from its .vitest-report.json;
// - each number: LANE_TESTS (or the vitest arguments after `--`) on the newest Node of that
//   release line, as `pnpm test:node <line>` runs it (scripts/test-node.mjs).
// Each lane ends with its own `N passed, N failed, N skipped` line; then a summary names every
// lane with its counts, its time and what failed in it, and the last line is the sum over all
// lanes, `N passed, N failed, N skipped`. Exits 1 when any lane failed. A line whose binary
// could not be had is a failed lane, named, never a skipped one.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { closingLine, countReportFile } from "./test-counts.mjs";
import { runOnNode } from "./test-node.mjs";

const ROOT = new URL("..", import.meta.url).pathname;

/**
 * What a lane on a newer Node runs: everything whose behaviour can depend on the Node it runs on
 * and that fits CI's 45 minutes three times over: every package's unit tests, the conformance
 * table and the adapters on each framework, the example apps, and the suites that need no
 * browser. Not here (the main lane runs them): the type tests (tsc's verdict does not depend on
 * the Node it runs on, and they need a build), test/readme (it builds and type-checks the docs),
 * test/packaging (npm installs), test/dashboard (Chromium), test/bench, test/scripts.
 * vitest filters are substrings of a test file's path from the repository's root.
 */
export const LANE_TESTS = [
  "--typecheck.enabled=false",
  "packages/",
  "test/conformance/",
  "test/adapters/",
  "examples/",
  "test/sandbox/",
  "test/testing/",
  "test/nestjs",
  "test/e2e/",
  "test/reconcile/",
  "test/lifecycle/",
  "test/otel/",
];

/**
 * Runs the lanes in order and prints the summary; returns the sum.
 * @param {string[]} lanes "main" and Node release lines, e.g. ["main", "22", "24", "26"]
 * @param {string[]} vitestArgs what the Node lanes run
 */
export function runLanes(lanes, vitestArgs = LANE_TESTS) {
  const results = [];
  for (const name of lanes) {
    console.log(`\n# lane ${name === "main" ? "main: pnpm test" : `node ${name}`}`);
    const started = Date.now();
    const result = name === "main" ? runMain() : runOnNode(name, vitestArgs);
    const seconds = Math.round((Date.now() - started) / 1000);
    for (const problem of result.counts.problems) console.log(`  ${result.lane}: ${problem}`);
    console.log(`${result.lane}: ${closingLine(result.counts)}`);
    results.push({ ...result, seconds });
  }

  const total = { passed: 0, failed: 0, skipped: 0 };
  console.log("\n# lanes");
  for (const { lane, counts, seconds } of results) {
    const verdict = counts.failed === 0 ? "passed" : "FAILED";
    console.log(`${lane} ${verdict} in ${seconds} s: ${closingLine(counts)}`);
    for (const problem of counts.problems) console.log(`  ${lane}: ${problem}`);
    total.passed += counts.passed;
    total.failed += counts.failed;
    total.skipped += counts.skipped;
  }
  console.log(closingLine(total));
  return total;
}

/** The README's test command on this machine's Node, counted as .ci/run always counted it. */
function runMain() {
  const { REPORTKIT_VITEST_REPORT: _ignored, ...env } = process.env;
  const result = spawnSync("pnpm", ["test"], { cwd: ROOT, stdio: "inherit", env });
  if (result.error) console.log(`pnpm test: ${result.error.message}`);
  const counts = countReportFile(join(ROOT, ".vitest-report.json"), result.status, {
    root: ROOT,
    command: "pnpm test",
  });
  return { lane: `main (${process.version})`, counts };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  const dashes = args.indexOf("--");
  const lanes = dashes === -1 ? args : args.slice(0, dashes);
  const bad = lanes.filter((lane) => lane !== "main" && !/^[1-9]\d*$/.test(lane));
  if (lanes.length === 0 || bad.length > 0) {
    console.error(
      `ci-lanes: each lane is "main" or a Node major version (not ${bad.join(", ") || "nothing"}): node scripts/ci-lanes.mjs main 22 24 26 [-- vitest args]`,
    );
    process.exit(2);
  }
  const total = runLanes(lanes, dashes === -1 ? LANE_TESTS : args.slice(dashes + 1));
  process.exitCode = total.failed === 0 ? 0 : 1;
}
