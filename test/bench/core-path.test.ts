// Keeps the path of one report short (issue 40): a JSON delivery report through Express runs code
// in at most 12 of core's files, as `core-path.mjs` counts them by V8's precise coverage on the
// built packages. A change that spreads the path over more files fails here with the list.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";

const MAX_CORE_FILES = 12;
const root = join(import.meta.dirname, "../..");
const run = promisify(execFile);

/** The core files ARCHITECTURE.md's "A report's path" lists, as their built names. */
function documentedPath(): string[] {
  const page = readFileSync(join(root, "ARCHITECTURE.md"), "utf8");
  const section = page.split("\n## A report's path\n")[1]?.split("\n## ")[0] ?? "";
  const named = [
    ...section.matchAll(
      /`((?:base|reply|report|composed|store-kit|request|process|receiver)\/[\w-]+)\.ts`/g,
    ),
  ];
  return [...new Set(named.map((match) => `${match[1]}.js`))].sort();
}

beforeAll(async () => {
  // The script counts the built files (dist/), one per source file: build first (incremental).
  try {
    await run(join(root, "node_modules/.bin/tsc"), ["-b"], { cwd: root });
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`tsc -b failed, so core's path cannot be measured:\n${stdout}${stderr}`);
  }
}, 300_000);

describe("one JSON delivery report through Express", () => {
  it(`runs code in at most ${MAX_CORE_FILES} of core's files`, async () => {
    const { stdout } = await run(process.execPath, [join(import.meta.dirname, "core-path.mjs")], {
      cwd: join(root, "test"),
    });
    const { count, files } = JSON.parse(stdout) as { count: number; files: string[] };
    expect(files.length).toBe(count);
    // The adapter's request reaches core's receiver: a count of 0 would be no measurement.
    expect(files).toContain("receiver/create-receiver.js");
    expect(
      count,
      `core's files one JSON DLR ran code in (${count}, at most ${MAX_CORE_FILES}):\n  ${files.join("\n  ")}\n`,
    ).toBeLessThanOrEqual(MAX_CORE_FILES);
    // The map of the path says the same.
    expect(documentedPath(), "ARCHITECTURE.md's \"A report's path\"").toEqual(files);
  });
});
