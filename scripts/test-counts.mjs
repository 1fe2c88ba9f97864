// What a vitest run really did, read from its JSON report (`.vitest-report.json`), for
// `pnpm test` (scripts/test.mjs) and CI (.ci/run). vitest's own totals can look green when
// tests did not run: a file that fails to load or whose beforeAll throws marks its tests
// *skipped* (numFailedTests stays 0), skipped and todo tests are not failures to vitest, and a
// run that writes no report shows nothing at all. Here each of those is a failure:
// - failed: every failed test, every file that failed outside a test (load error, hook) and
//   every test that did not run (skipped, todo, or left unrun by a crashed file); one more when
//   the report is missing or unreadable, lists no test, or vitest exited non-zero with nothing
//   else failed;
// - skipped: how many of those failures are tests that did not run.
// The closing line is `N passed, N failed, N skipped`.
//
// As a command: `node scripts/test-counts.mjs <report.json> <exit status> [<command name>]`
// prints what failed, then the closing line, and exits 1 when anything failed.
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Counts a vitest JSON report.
 * @param {string | null} reportText the report's text; null when it could not be read
 * @param {number | null} exitStatus vitest's exit status (null when it was killed by a signal)
 * @param {{ root?: string, missingReason?: string, command?: string }} [options] root: file
 *   names are shown relative to it; missingReason: why the report could not be read; command:
 *   what exited with exitStatus (default "vitest")
 * @returns {{ passed: number, failed: number, skipped: number, problems: string[] }}
 */
export function countTests(reportText, exitStatus, options = {}) {
  const root = options.root ?? process.cwd();
  const counts = { passed: 0, failed: 0, skipped: 0, problems: [] };
  const fail = (problem) => {
    counts.failed += 1;
    counts.problems.push(problem);
  };

  const report = parseReport(reportText);
  if (typeof report === "string") {
    fail(
      reportText === null
        ? `no vitest report${options.missingReason ? ` (${options.missingReason})` : ""}: vitest did not finish, or ran without its json reporter`
        : `unreadable vitest report: ${report}`,
    );
  } else {
    for (const file of report.testResults) {
      const name = relative(root, String(file.name ?? "?"));
      const tests = Array.isArray(file.assertionResults) ? file.assertionResults : [];
      let failedTests = 0;
      for (const test of tests) {
        const title = [name, ...(test.ancestorTitles ?? []), test.title].join(" > ");
        if (test.status === "passed") counts.passed += 1;
        else if (test.status === "failed") {
          failedTests += 1;
          fail(`failed test: ${title}`);
        } else {
          counts.skipped += 1;
          fail(`test did not run (${test.status}): ${title}`);
        }
      }
      const message = firstLine(file.message);
      if (file.status === "failed" && (message !== "" || failedTests === 0)) {
        fail(`failed file: ${name}: ${message || "failed outside its tests"}`);
      }
    }
    if (counts.passed + counts.failed === 0) fail("the vitest report lists no test");
  }

  if (exitStatus !== 0 && counts.failed === 0) {
    fail(
      `${options.command ?? "vitest"} exited with status ${exitStatus ?? "null (killed)"} although no test failed`,
    );
  }
  return counts;
}

/** The closing line CI reads. */
export function closingLine({ passed, failed, skipped }) {
  return `${passed} passed, ${failed} failed, ${skipped} skipped`;
}

/**
 * Reads and counts the report at `path`; a missing or unreadable file is a failure.
 * @param {string} path
 * @param {number | null} exitStatus
 * @param {{ root?: string, command?: string }} [options]
 */
export function countReportFile(path, exitStatus, options = {}) {
  let text = null;
  let missingReason;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    missingReason = `${path}: ${error instanceof Error ? error.message : String(error)}`;
  }
  return countTests(text, exitStatus, { ...options, missingReason });
}

/** The report object, or why it is not one. */
function parseReport(text) {
  if (text === null) return "missing";
  let report;
  try {
    report = JSON.parse(text);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  if (typeof report !== "object" || report === null || !Array.isArray(report.testResults)) {
    return "it has no testResults array";
  }
  return report;
}

function firstLine(message) {
  return typeof message === "string" ? (message.trim().split("\n")[0] ?? "") : "";
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [path = ".vitest-report.json", status = "1", command] = process.argv.slice(2);
  const exitStatus = /^\d+$/.test(status) ? Number(status) : null;
  const counts = countReportFile(path, exitStatus, { command });
  for (const problem of counts.problems) console.log(`  ${problem}`);
  console.log(closingLine(counts));
  process.exitCode = counts.failed === 0 ? 0 : 1;
}
