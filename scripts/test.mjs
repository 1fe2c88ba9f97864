// `pnpm test`: type-check, lint, vitest, pack check, then one line saying what ran and how it
// went. Every step runs even when an earlier one failed (the pack check needs the build, so it
// is skipped when the build failed), so one run shows everything that is wrong.
// Runs the tools from node_modules/.bin directly: no pnpm needed on PATH. Arguments go to
// vitest: `pnpm test test/adapters` runs every step but only those test files.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { closingLine, countReportFile } from "./test-counts.mjs";

const root = new URL("..", import.meta.url).pathname;
const bin = (name) => join(root, "node_modules/.bin", name);
const REPORT = join(root, ".vitest-report.json");

/** Runs one command with its output on this terminal; true when it exited 0. */
function run(cmd, args) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: "inherit" });
  if (result.error) console.error(`${cmd}: ${result.error.message}`);
  return result.status === 0;
}

const parts = [];

console.log("\n# typecheck: tsc -b && tsc -p tsconfig.check.json");
const built = run(bin("tsc"), ["-b"]);
const typecheck = built && run(bin("tsc"), ["-p", "tsconfig.check.json"]);
parts.push(`typecheck ${typecheck ? "ok" : "FAILED"}`);

console.log("\n# lint: biome check .");
const lint = run(bin("biome"), ["check", "."]);
parts.push(`lint ${lint ? "ok" : "FAILED"}`);

console.log("\n# tests: vitest run");
rmSync(REPORT, { force: true });
const vitestRun = spawnSync(bin("vitest"), ["run", ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
});
if (vitestRun.error) console.error(`vitest: ${vitestRun.error.message}`);
// A crashed file, a skipped test, a missing report: each is a failure (scripts/test-counts.mjs).
const counts = countReportFile(REPORT, vitestRun.status, { root });
const vitest = counts.failed === 0;
if (!vitest) {
  console.log("\n# what failed or did not run");
  for (const problem of counts.problems) console.log(`  ${problem}`);
}
parts.push(`tests ${closingLine(counts)}`);

let pack = false;
if (built) {
  console.log("\n# pack check: scripts/pack-check.mjs");
  pack = run(process.execPath, [join(root, "scripts/pack-check.mjs")]);
  parts.push(`pack check ${pack ? "ok" : "FAILED"}`);
} else {
  parts.push("pack check skipped (build failed)");
}

const ok = typecheck && lint && vitest && pack;
console.log(`\npnpm test ${ok ? "passed" : "FAILED"}: ${parts.join("; ")}`);
process.exitCode = ok ? 0 : 1;
