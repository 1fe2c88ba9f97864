// The README's first command on a fresh clone: `npx -y pnpm@10.34.9 install` says nothing it
// should not. It once warned twice "Failed to create bin … packages/cli/dist/cli.js" (the bin
// pointed at a file only the build makes) and drew an "Ignored build scripts" box. Here: the
// repository's files as a clone has them (tracked, and new files not ignored), installed from
// this machine's pnpm store (--offline: nothing is fetched), with the lockfile as it is.
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { run, succeed } from "./commands.js";

const root = join(import.meta.dirname, "../..");
const PNPM = ["-y", "pnpm@10.34.9"];
const clone = mkdtempSync(join(tmpdir(), "reportkit-fresh-install-"));

afterAll(() => rmSync(clone, { recursive: true, force: true }));

describe("a fresh install of the repository", () => {
  it("prints no warning: no bin it cannot create, no ignored build script", async () => {
    const files = await succeed(
      "git",
      ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
      {
        cwd: root,
        timeoutMs: 30_000,
      },
    );
    // Not a tracked file deleted in this working tree: a clone would not have it either.
    for (const file of files.split("\0").filter((f) => f !== "" && existsSync(join(root, f)))) {
      mkdirSync(join(clone, dirname(file)), { recursive: true });
      cpSync(join(root, file), join(clone, file), { force: true });
    }
    const store = (
      await succeed("npx", [...PNPM, "store", "path"], { cwd: root, timeoutMs: 60_000 })
    ).trim();
    const installed = await run(
      "npx",
      [...PNPM, "install", "--frozen-lockfile", "--offline", "--store-dir", store],
      { cwd: clone, timeoutMs: 240_000 },
    );
    expect(installed.code, installed.output).toBe(0);
    expect(installed.output).toContain("Done in");
    expect(installed.output).not.toContain("Failed to create bin");
    expect(installed.output).not.toContain("Ignored build scripts");
    expect(installed.output.split("\n").filter((line) => /\bWARN\b/.test(line))).toEqual([]);
  }, 300_000);
});
