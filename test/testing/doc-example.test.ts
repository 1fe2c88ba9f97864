// The first example of docs/testing.md, run as a user's own test file (vitest, in a project of
// its own whose packages are the workspace's): it passes, and prints nothing. Its 401 is
// intended, so the receiver in it must not log it.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { typescriptSnippets } from "../readme/snippets.js";

const root = join(import.meta.dirname, "../..");
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A project whose node_modules are the test workspace's, plus vitest. */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "reportkit-testing-doc-"));
  dirs.push(dir);
  const modules = join(dir, "node_modules");
  mkdirSync(modules);
  for (const name of readdirSync(join(root, "test/node_modules"))) {
    symlinkSync(join(root, "test/node_modules", name), join(modules, name), "dir");
  }
  symlinkSync(join(root, "node_modules/vitest"), join(modules, "vitest"), "dir");
  writeFileSync(join(dir, "package.json"), `{ "type": "module" }\n`);
  return dir;
}

describe("docs/testing.md's example, as a user's test file", () => {
  it("passes and prints nothing: its intended 401 is not logged (logger: false)", async () => {
    const [example] = typescriptSnippets(join(root, "docs/testing.md"));
    expect(example?.code).toContain("sendReport(app, callPayload(), { secret: null })");
    const dir = project();
    writeFileSync(join(dir, "example.test.ts"), example?.code ?? "");
    const run = await new Promise<{ code: number; out: string }>((resolve) => {
      execFile(
        join(root, "node_modules/.bin/vitest"),
        ["run", "--root", dir, "--reporter", "dot", "example.test.ts"],
        { cwd: dir, timeout: 60_000, env: { ...process.env, NO_COLOR: "1", CI: "" } },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
          resolve({ code, out: `${stdout}${stderr}` });
        },
      );
    });
    expect(run, run.out).toMatchObject({ code: 0 });
    expect(run.out).toMatch(/1 passed/);
    expect(run.out).not.toMatch(/reportkit: |unauthorized|Missing credentials/);
  });
});
