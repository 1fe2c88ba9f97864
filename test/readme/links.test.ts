import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokenLink, documentationFiles, markdownLinks, REPOSITORY } from "./links.js";

describe("markdownLinks", () => {
  it("finds inline links with the line of their target, outside code blocks and code spans", () => {
    const links = markdownLinks(
      [
        "# title", // 1
        "See [Options](docs/options.md#options) and [`@reportkit/redis`](packages/redis/README.md).", // 2
        "A [link text", // 3
        'on two lines](#title), an image ![x](logo.png "title").', // 4
        "```ts", // 5
        "const a = [1](2); // [not](a-link.md)", // 6
        "```", // 7
        "`[not](code.md)` and ``a `[no](t.md)` b``, then [yes](y.md)", // 8
        "[external](https://example.com/a_(b)) [bare] (not.md)", // 9
      ].join("\n"),
    );
    expect(links).toEqual([
      { line: 2, target: "docs/options.md#options" },
      { line: 2, target: "packages/redis/README.md" },
      { line: 4, target: "#title" },
      { line: 4, target: "logo.png" },
      { line: 8, target: "y.md" },
      { line: 9, target: "https://example.com/a_(b)" },
    ]);
  });
});

describe("brokenLink and documentationFiles", () => {
  const root = mkdtempSync(join(tmpdir(), "reportkit-links-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, "docs/deeper"), { recursive: true });
  mkdirSync(join(root, "packages/core"), { recursive: true });
  mkdirSync(join(root, "examples/queue"), { recursive: true });
  writeFileSync(join(root, "README.md"), "# reportkit\n\n## Replies\n");
  writeFileSync(join(root, "docs/options.md"), "# Options\n\n## The `token` option\n");
  writeFileSync(join(root, "docs/deeper/page.md"), "# Deeper\n");
  writeFileSync(join(root, "docs/notes.txt"), "not a page\n");
  writeFileSync(join(root, "packages/core/README.md"), "# @reportkit/core\n");

  it("lists README.md, the docs pages and the package READMEs", () => {
    expect(documentationFiles(root)).toEqual([
      "README.md",
      "docs/deeper/page.md",
      "docs/options.md",
      "packages/core/README.md",
    ]);
    writeFileSync(join(root, "ARCHITECTURE.md"), "# Architecture\n");
    expect(documentationFiles(root)).toContain("ARCHITECTURE.md");
  });

  it("resolves files, directories and anchors relative to the linking file", () => {
    expect(brokenLink(root, "README.md", "docs/options.md#the-token-option")).toBeNull();
    expect(brokenLink(root, "README.md", "#replies")).toBeNull();
    expect(brokenLink(root, "README.md", "examples/queue")).toBeNull();
    expect(brokenLink(root, "docs/options.md", "../README.md#replies")).toBeNull();
    expect(brokenLink(root, "docs/options.md", "#options")).toBeNull();
    expect(brokenLink(root, "docs/deeper/page.md", "../options.md")).toBeNull();
    expect(brokenLink(root, "packages/core/README.md", "../../README.md#reportkit")).toBeNull();
  });

  it("says what is wrong with a link that does not resolve", () => {
    expect(brokenLink(root, "README.md", "#options")).toBe(
      "#options: README.md has no heading with the anchor #options",
    );
    expect(brokenLink(root, "docs/options.md", "README.md#replies")).toBe(
      "README.md#replies: there is no docs/README.md",
    );
    expect(brokenLink(root, "docs/options.md", "../README.md#nope")).toBe(
      "../README.md#nope: README.md has no heading with the anchor #nope",
    );
    expect(brokenLink(root, "README.md", "docs/notes.txt#x")).toBe(
      "docs/notes.txt#x: an anchor into docs/notes.txt, which is no Markdown file",
    );
    expect(brokenLink(root, "README.md", "../outside.md")).toBe(
      "../outside.md leaves the repository",
    );
  });

  it("checks links to the repository on GitHub against the files here, and no other URL", () => {
    expect(brokenLink(root, "packages/core/README.md", `${REPOSITORY}#readme`)).toBeNull();
    expect(
      brokenLink(
        root,
        "packages/core/README.md",
        `${REPOSITORY}/blob/main/docs/options.md#options`,
      ),
    ).toBeNull();
    expect(brokenLink(root, "packages/core/README.md", `${REPOSITORY}/tree/main/docs`)).toBeNull();
    expect(
      brokenLink(root, "packages/core/README.md", `${REPOSITORY}/blob/main/docs/gone.md`),
    ).toBe(`${REPOSITORY}/blob/main/docs/gone.md: there is no docs/gone.md`);
    expect(
      brokenLink(root, "packages/core/README.md", `${REPOSITORY}/blob/main/README.md#gone`),
    ).toBe(
      `${REPOSITORY}/blob/main/README.md#gone: README.md has no heading with the anchor #gone`,
    );
    expect(brokenLink(root, "README.md", "https://example.com/missing.md#x")).toBeNull();
  });
});
