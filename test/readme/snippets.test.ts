import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { headingAnchors, typescriptSnippets } from "./snippets.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function markdownFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "readme-"));
  dirs.push(dir);
  const file = join(dir, "README.md");
  writeFileSync(file, text);
  return file;
}

describe("typescriptSnippets", () => {
  it("finds ts and typescript blocks with the line of their first code line, and only those", () => {
    const file = markdownFile(
      [
        "# title", // 1
        "```sh", // 2
        "npm i x", // 3
        "```", // 4
        "```ts", // 5
        "const a = 1;", // 6
        "```", // 7
        "text", // 8
        "~~~typescript title", // 9
        "const b = 2;", // 10
        "```ts", // 11: inside the ~~~ block, not a fence of its own
        "~~~", // 12
        "````TS", // 13
        "```", // 14: shorter than the opening fence
        "````", // 15
        "```json", // 16
        "{}", // 17
        "```", // 18
      ].join("\n"),
    );
    expect(typescriptSnippets(file)).toEqual([
      { line: 6, code: "const a = 1;", title: "const a = 1;" },
      { line: 10, code: "const b = 2;\n```ts", title: "const b = 2;" },
      { line: 14, code: "```", title: "```" },
    ]);
  });
});

describe("headingAnchors", () => {
  it("makes GitHub's anchors, numbering repeats and skipping code blocks", () => {
    const anchors = headingAnchors(
      [
        "## Express: `@reportkit/express`",
        "### `reportkit` CLI: `@reportkit/cli`",
        "## Options",
        "```sh",
        "# not a heading",
        "```",
        "## Options",
      ].join("\n"),
    );
    expect([...anchors]).toEqual([
      "express-reportkitexpress",
      "reportkit-cli-reportkitcli",
      "options",
      "options-1",
    ]);
  });
});
