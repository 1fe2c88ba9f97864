// scripts/test-counts.mjs decides the line CI reads ("N passed, N failed, N skipped") and
// whether `pnpm test` passes. Each case runs a real vitest on small test files in a temp dir
// and counts the JSON report it wrote, the way scripts/test.mjs and .ci/run do.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closingLine, countReportFile, countTests } from "../../scripts/test-counts.mjs";

const root = new URL("../..", import.meta.url).pathname;
const VITEST = join(root, "node_modules/.bin/vitest");
const COUNTS_SCRIPT = join(root, "scripts/test-counts.mjs");

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface VitestRun {
  dir: string;
  status: number | null;
  report: string;
}

/** Runs vitest on `files` in a fresh temp dir, with the json reporter unless told otherwise. */
function runVitest(files: Record<string, string>, json = true): Promise<VitestRun> {
  const dir = mkdtempSync(join(tmpdir(), "reportkit-test-counts-"));
  dirs.push(dir);
  writeFileSync(join(dir, "vitest.config.mjs"), "export default { test: {} };\n");
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const report = join(dir, "report.json");
  const args = ["run", "--root", dir, "--reporter=dot"];
  if (json) args.push("--reporter=json", `--outputFile.json=${report}`);
  // The outer vitest's variables would make the inner one think it runs inside a worker.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST") && k !== "NODE_OPTIONS"),
  );
  return new Promise((resolve) => {
    const child = execFile(VITEST, args, { cwd: dir, env }, () =>
      resolve({ dir, status: child.exitCode, report }),
    );
  });
}

/** The script as .ci/run calls it: its output lines and exit status. */
function runCountsScript(
  report: string,
  status: number,
): Promise<{ lines: string[]; status: number | null }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [COUNTS_SCRIPT, report, String(status), "pnpm test"],
      (_error, stdout) => resolve({ lines: stdout.trimEnd().split("\n"), status: child.exitCode }),
    );
  });
}

const PASSING = `import { expect, it } from "vitest";
it("adds", () => expect(1 + 1).toBe(2));
it("concatenates", () => expect("a" + "b").toBe("ab"));
`;

describe("scripts/test-counts.mjs on real vitest reports", () => {
  it("stays green when every test ran and passed", async () => {
    const run = await runVitest({ "ok.test.ts": PASSING });
    expect(run.status).toBe(0);
    const counts = countReportFile(run.report, run.status, { root: run.dir });
    expect(counts).toEqual({ passed: 2, failed: 0, skipped: 0, problems: [] });
    expect(closingLine(counts)).toBe("2 passed, 0 failed, 0 skipped");
    expect(await runCountsScript(run.report, run.status ?? 1)).toEqual({
      lines: ["2 passed, 0 failed, 0 skipped"],
      status: 0,
    });
  });

  it("counts a file that failed to load as a failure, though vitest counts no failed test", async () => {
    const run = await runVitest({
      "ok.test.ts": PASSING,
      "broken.test.ts": `import { it } from "vitest";\nimport "./not-there.js";\nit("never runs", () => {});\n`,
    });
    const vitestSays = JSON.parse(readFileSync(run.report, "utf8"));
    expect([vitestSays.numPassedTests, vitestSays.numFailedTests]).toEqual([2, 0]);

    const counts = countReportFile(run.report, run.status, { root: run.dir });
    expect(counts.problems).toEqual([
      expect.stringMatching(/^failed file: broken\.test\.ts: .*not-there\.js/),
    ]);
    expect(closingLine(counts)).toBe("2 passed, 1 failed, 0 skipped");
    const script = await runCountsScript(run.report, run.status ?? 1);
    expect(script.status).toBe(1);
    expect(script.lines.at(-1)).toBe("2 passed, 1 failed, 0 skipped");
    expect(script.lines[0]).toMatch(/failed file: .*broken\.test\.ts/);
  });

  it("counts a file whose beforeAll threw, and each test it left unrun", async () => {
    const run = await runVitest({
      "hook.test.ts": `import { beforeAll, expect, it } from "vitest";
beforeAll(() => { throw new Error("redis-server would not start"); });
it("claims", () => expect(1).toBe(1));
it("releases", () => expect(1).toBe(1));
`,
    });
    const vitestSays = JSON.parse(readFileSync(run.report, "utf8"));
    expect(vitestSays.numFailedTests).toBe(0);

    const counts = countReportFile(run.report, run.status, { root: run.dir });
    expect(counts.problems).toEqual([
      "test did not run (skipped): hook.test.ts > claims",
      "test did not run (skipped): hook.test.ts > releases",
      "failed file: hook.test.ts: redis-server would not start",
    ]);
    expect(closingLine(counts)).toBe("0 passed, 3 failed, 2 skipped");
  });

  it("counts skipped and todo tests as failures, though vitest exits 0", async () => {
    const run = await runVitest({
      "skips.test.ts": `import { describe, expect, it } from "vitest";
describe("store", () => {
  it("claims", () => expect(1).toBe(1));
  it.skip("expires", () => expect(1).toBe(1));
  it.todo("releases");
});
`,
    });
    expect(run.status).toBe(0);
    const counts = countReportFile(run.report, run.status, { root: run.dir });
    expect(counts.problems).toEqual([
      "test did not run (skipped): skips.test.ts > store > expires",
      "test did not run (todo): skips.test.ts > store > releases",
    ]);
    expect(closingLine(counts)).toBe("1 passed, 2 failed, 2 skipped");
    const script = await runCountsScript(run.report, 0);
    expect(script).toMatchObject({ status: 1 });
    expect(script.lines.at(-1)).toBe("1 passed, 2 failed, 2 skipped");
  });

  it("counts a failed test once, with its name", async () => {
    const run = await runVitest({
      "fails.test.ts": `import { expect, it } from "vitest";\nit("is 2", () => expect(1).toBe(2));\nit("is 1", () => expect(1).toBe(1));\n`,
    });
    expect(run.status).toBe(1);
    const counts = countReportFile(run.report, run.status, { root: run.dir });
    expect(counts.problems).toEqual(["failed test: fails.test.ts > is 2"]);
    expect(closingLine(counts)).toBe("1 passed, 1 failed, 0 skipped");
  });

  it("counts a missing report as a failure, though vitest exits 0", async () => {
    const run = await runVitest({ "ok.test.ts": PASSING }, false);
    expect(run.status).toBe(0);
    const counts = countReportFile(run.report, run.status);
    expect(counts.failed).toBe(1);
    expect(counts.problems).toEqual([
      expect.stringMatching(
        /^no vitest report \(.*report\.json: ENOENT.*\): vitest did not finish/,
      ),
    ]);
    expect(closingLine(counts)).toBe("0 passed, 1 failed, 0 skipped");
    const script = await runCountsScript(run.report, 0);
    expect(script.status).toBe(1);
    expect(script.lines.at(-1)).toBe("0 passed, 1 failed, 0 skipped");
  });

  it("counts an unreadable report as a failure", async () => {
    const run = await runVitest({ "ok.test.ts": PASSING });
    const truncated = readFileSync(run.report, "utf8").slice(0, 200);
    const counts = countTests(truncated, 0);
    expect(counts.problems).toEqual([expect.stringMatching(/^unreadable vitest report: /)]);
    expect(closingLine(counts)).toBe("0 passed, 1 failed, 0 skipped");
    expect(countTests("{}", 0).problems).toEqual([
      "unreadable vitest report: it has no testResults array",
    ]);
  });

  it("counts a non-zero exit with no failed test as a failure (an error after a test ended)", async () => {
    const run = await runVitest({
      "late.test.ts": `import { expect, it } from "vitest";
it("passes but leaves an error behind", () => {
  setTimeout(() => { throw new Error("thrown after the test ended"); }, 0);
  expect(1).toBe(1);
});
it("waits for it", async () => { await new Promise((r) => setTimeout(r, 50)); });
`,
    });
    const vitestSays = JSON.parse(readFileSync(run.report, "utf8"));
    expect([vitestSays.numPassedTests, vitestSays.numFailedTests]).toEqual([2, 0]);
    expect(run.status).toBe(1);

    const counts = countReportFile(run.report, run.status, { root: run.dir });
    expect(counts.problems).toEqual(["vitest exited with status 1 although no test failed"]);
    expect(closingLine(counts)).toBe("2 passed, 1 failed, 0 skipped");
    const script = await runCountsScript(run.report, 1);
    expect(script.lines).toEqual([
      "  pnpm test exited with status 1 although no test failed",
      "2 passed, 1 failed, 0 skipped",
    ]);
  });

  it("counts a report that lists no test as a failure", () => {
    const counts = countTests(JSON.stringify({ testResults: [] }), 0);
    expect(counts.problems).toEqual(["the vitest report lists no test"]);
    expect(closingLine(counts)).toBe("0 passed, 1 failed, 0 skipped");
  });
});
