// ARCHITECTURE.md names files in code spans (`receiver/create-receiver.ts`, `payloads.ts`), not
// links, so the link check does not see them: every one it names must exist, or the map sends
// whoever reads it to a file that is gone (it once listed an `env-token.ts`).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const SKIP = new Set(["node_modules", "dist", ".git", ".next", ".turbo"]);
const FILE_NAME = /^[\w@.-]+(?:\/[\w@.-]+)*\.(?:ts|mts|mjs|js|json|md|sql)$/;

/** The repository's files, relative to its root, without dependencies and build output. */
function repositoryFiles(dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? repositoryFiles(path) : [relative(root, path)];
  });
}

/** The file names in a Markdown text's code spans; placeholders (`<module>.test.ts`) left out. */
function namedFiles(markdown: string): string[] {
  const spans = [...markdown.matchAll(/`([^`\n]+)`/g)].map((match) => match[1] ?? "");
  return [...new Set(spans.filter((span) => FILE_NAME.test(span)))];
}

/**
 * Whether a named file exists: by its path from the root or from core's `src/` (the layers'
 * folders), or, named within its package, by the end of its path.
 */
function exists(name: string, files: readonly string[]): boolean {
  return files.some(
    (file) => file === name || file === `packages/core/src/${name}` || file.endsWith(`/${name}`),
  );
}

describe("ARCHITECTURE.md", () => {
  it("names only files that exist", () => {
    const named = namedFiles(readFileSync(join(root, "ARCHITECTURE.md"), "utf8"));
    const files = repositoryFiles();
    // The page names core's files by folder, and the packages' by name: dozens of them.
    expect(named.length).toBeGreaterThan(40);
    expect(named.filter((name) => !exists(name, files))).toEqual([]);
  });

  it("a name it would not find is reported (the check can fail)", () => {
    const files = ["packages/core/src/receiver/env.ts", "packages/wire/src/payloads.ts"];
    expect(
      namedFiles("`receiver/env.ts`, `payloads.ts`, `env-token.ts`, `<module>.test.ts`"),
    ).toEqual(["receiver/env.ts", "payloads.ts", "env-token.ts"]);
    expect(
      ["receiver/env.ts", "payloads.ts", "env-token.ts"].filter((n) => !exists(n, files)),
    ).toEqual(["env-token.ts"]);
  });
});
