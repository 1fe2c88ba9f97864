// Core's folders are layers, each importing only from itself and the ones below it (issue 40):
// types and helpers at the bottom, the receiver that puts the pipeline together at the top. The
// entry files (index.ts, adapter.ts) sit above them all. Web-standard APIs only: no `node:`.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/** Bottom to top, as ARCHITECTURE.md lists them. */
const LAYERS = [
  "base",
  "reply",
  "report",
  "composed",
  "store-kit",
  "request",
  "process",
  "receiver",
];
const ENTRIES = ["index.ts", "adapter.ts"];
const root = import.meta.dirname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

const IMPORT = /(?:from|import)\s*\(?\s*"([^"]+)"/g;

describe("core's layers", () => {
  const files = sources(root).map((path) => relative(root, path));

  it("every source file is an entry or in a layer's folder", () => {
    const stray = files.filter(
      (file) => !ENTRIES.includes(file) && !LAYERS.includes(file.split("/")[0] ?? ""),
    );
    expect(stray).toEqual([]);
  });

  it("no folder imports from a folder above it, and nothing imports node:", () => {
    const upward: string[] = [];
    for (const file of files) {
      const from = file.split("/")[0] ?? "";
      const level = ENTRIES.includes(file) ? LAYERS.length : LAYERS.indexOf(from);
      for (const [, specifier] of readFileSync(join(root, file), "utf8").matchAll(IMPORT)) {
        if (specifier?.startsWith("node:")) upward.push(`${file} imports ${specifier}`);
        if (!specifier?.startsWith(".")) continue;
        const target = relative(root, join(root, file, "..", specifier)).split("/")[0] ?? "";
        if (LAYERS.indexOf(target) > level) upward.push(`${file} imports ${specifier}`);
      }
    }
    expect(upward).toEqual([]);
  });
});
