// `pnpm test:node <line> [vitest args]`: vitest run on another Node.js release line, e.g.
// `pnpm test:node 24 test/adapters`, as a CI lane runs it (scripts/ci-lanes.mjs calls
// runOnNode below). The binary is the newest of that line on the npm registry, downloaded
// once and cached (scripts/node-binary.mjs). vitest's own entry runs under it, with its
// directory first on PATH, so a test's child `node` (and every `#!/usr/bin/env node` tool) is
// that Node too.
//
// Ends with `node 24 (v24.22.3): N passed, N failed, N skipped`, counted from vitest's JSON
// report by scripts/test-counts.mjs (a file that failed to load is a failure), plus one failure
// per distinct warning Node printed while the tests ran (a deprecation such as `punycode` or
// `Buffer()`, in vitest's workers and in the processes the tests start; NODE_OPTIONS'
// --redirect-warnings collects them), and a failure when no binary could be had. Exits 1 when
// anything failed.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { pathToFileURL } from "node:url";
import { nodeBinary } from "./node-binary.mjs";
import { closingLine, countReportFile } from "./test-counts.mjs";

const ROOT = new URL("..", import.meta.url).pathname;
/** A lane that runs longer than this has hung: CI as a whole must stay under 45 minutes. */
const LANE_TIMEOUT_MS = 45 * 60_000;

/**
 * Runs `vitest run <vitestArgs>` in the repository on the newest Node of `line`.
 * @param {string} line a major version, e.g. "24"
 * @param {string[]} vitestArgs
 * @param {{ root?: string, env?: NodeJS.ProcessEnv, log?: (line: string) => void }} [options]
 * @returns {{ lane: string, version: string | null, counts: import("./test-counts.d.mts").TestCounts }}
 */
export function runOnNode(line, vitestArgs, options = {}) {
  const root = options.root ?? ROOT;
  const env = options.env ?? process.env;
  const log = options.log ?? ((text) => console.log(text));
  const lane = `node ${line}`;

  let binary;
  try {
    binary = nodeBinary(line, { env, log });
  } catch (error) {
    const problem = error instanceof Error ? error.message : String(error);
    return {
      lane,
      version: null,
      counts: { passed: 0, failed: 1, skipped: 0, problems: [problem] },
    };
  }

  const work = mkdtempSync(join(tmpdir(), `reportkit-node-${line}-`));
  try {
    const report = join(work, "report.json");
    const warnings = join(work, "warnings.txt");
    const args = [join(root, "node_modules/vitest/vitest.mjs"), "run", ...vitestArgs];
    log(`${lane}: ${binary.path} ${args.join(" ")}`);
    const result = spawnSync(binary.path, args, {
      cwd: root,
      stdio: "inherit",
      timeout: LANE_TIMEOUT_MS,
      env: {
        ...env,
        PATH: [binary.binDir, env.PATH].filter(Boolean).join(delimiter),
        NODE_OPTIONS: [env.NODE_OPTIONS, `--redirect-warnings=${JSON.stringify(warnings)}`]
          .filter(Boolean)
          .join(" "),
        REPORTKIT_VITEST_REPORT: report,
      },
    });
    if (result.error) log(`${lane}: ${result.error.message}`);
    const counts = countReportFile(report, result.status, {
      root,
      command: `vitest on v${binary.version}`,
    });
    for (const warning of warningsIn(warnings)) {
      counts.failed += 1;
      counts.problems.push(`Node printed a warning: ${warning}`);
    }
    return { lane: `${lane} (v${binary.version})`, version: binary.version, counts };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The distinct warnings in a --redirect-warnings file, each as its first line without the
 * process id ("[DEP0040] DeprecationWarning: The `punycode` module is deprecated. …"), with
 * how many times it was printed when more than once.
 */
export function warningsIn(path) {
  let text;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  const seen = new Map();
  for (const line of text.split("\n")) {
    const match = /^\(node:\d+\) (.*)$/.exec(line);
    if (match?.[1]) seen.set(match[1], (seen.get(match[1]) ?? 0) + 1);
  }
  return [...seen].map(([warning, times]) => (times > 1 ? `${warning} (${times} times)` : warning));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [line, ...vitestArgs] = process.argv.slice(2);
  if (line === undefined || !/^[1-9]\d*$/.test(line)) {
    console.error(
      "test:node: the first argument is a Node major version, the rest go to vitest run: pnpm test:node 24 test/adapters",
    );
    process.exit(2);
  }
  const { lane, counts } = runOnNode(line, vitestArgs);
  for (const problem of counts.problems) console.log(`  ${lane}: ${problem}`);
  console.log(`${lane}: ${closingLine(counts)}`);
  process.exitCode = counts.failed === 0 ? 0 : 1;
}
