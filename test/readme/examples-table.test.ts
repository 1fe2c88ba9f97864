// The examples table of docs/adapters.md lists every example app under examples/ (the demo has
// the README's first block), each with a command that starts it: its package's name after
// --filter, and one of its package.json scripts.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const table = readFileSync(join(root, "docs/adapters.md"), "utf8")
  .split("\n")
  .filter((line) => /^\| `examples\/[\w-]+`/.test(line));

const examples = readdirSync(join(root, "examples")).filter(
  (dir) => dir !== "demo" && existsSync(join(root, "examples", dir, "package.json")),
);

describe("docs/adapters.md's examples table", () => {
  it("has a row for each example app", () => {
    const listed = table.map((line) => /^\| `examples\/([\w-]+)`/.exec(line)?.[1]);
    expect(listed.sort()).toEqual([...examples].sort());
  });

  it.each(examples)(
    "examples/%s: its command runs one of its scripts, by its package name",
    (dir) => {
      const pkg = JSON.parse(readFileSync(join(root, "examples", dir, "package.json"), "utf8"));
      const row = table.find((line) => line.startsWith(`| \`examples/${dir}\``)) ?? "";
      const command = new RegExp(`--filter ${pkg.name} ([\\w:-]+)`).exec(row);
      expect(command, `a "--filter ${pkg.name} <script>" command in: ${row}`).not.toBeNull();
      expect(Object.keys(pkg.scripts ?? {})).toContain(command?.[1]);
    },
  );
});
