// Types for scripts/test-counts.mjs (a plain .mjs so `pnpm test` and CI run it with node alone),
// for its test in test/scripts/.
export interface TestCounts {
  passed: number;
  /** Failed tests, failed files, tests that did not run, plus one for a missing report etc. */
  failed: number;
  /** Tests that did not run (counted in `failed` too). */
  skipped: number;
  /** One line per failure, e.g. "failed file: test/x.test.ts: Cannot find module …". */
  problems: string[];
}
export function countTests(
  reportText: string | null,
  exitStatus: number | null,
  options?: { root?: string; missingReason?: string; command?: string },
): TestCounts;
export function countReportFile(
  path: string,
  exitStatus: number | null,
  options?: { root?: string; command?: string },
): TestCounts;
export function closingLine(counts: Pick<TestCounts, "passed" | "failed" | "skipped">): string;
