// Every TypeScript snippet in README.md compiles, against the BUILT packages (dist/*.d.ts, as
// a user gets them from npm), not their sources. `tsc -b` runs first. Each snippet is
// type-checked as a module of its own, in memory (no file is written), as if it sat in test/
// where @reportkit/*, express, fastify, hono and @hono/node-server resolve. A failure names
// the README line and shows it. Placeholders a snippet needs are declared in it, visibly
// (`declare function saveCall(...): Promise<void>;`).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { headingAnchors, type Snippet, typescriptSnippets } from "./snippets.js";

const root = join(import.meta.dirname, "../..");
const README = join(root, "README.md");
const snippets = typescriptSnippets(README);

/** In-memory file of a snippet: here module resolution finds test/node_modules. */
const fileOf = (snippet: Snippet) => join(root, "test/readme", `README.md-line-${snippet.line}.ts`);

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
  types: ["node"],
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  isolatedModules: true,
  verbatimModuleSyntax: false,
  // No "source" condition: @reportkit/* resolve to their dist types, as published.
};

/** Diagnostics by snippet file; `other` holds those of no snippet (config, libraries). */
let bySnippet: Map<string, string[]>;
let other: string[];

function check(): void {
  const files = new Map<string, string>();
  for (const snippet of snippets) {
    // `export {}` makes a snippet without imports a module too (top-level await, own scope).
    files.set(fileOf(snippet), `${snippet.code}\nexport {};\n`);
  }
  const host = ts.createCompilerHost(COMPILER_OPTIONS);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => files.has(name) || fileExists.call(host, name);
  host.readFile = (name) => files.get(name) ?? readFile.call(host, name);
  host.getSourceFile = (name, language, ...rest) => {
    const text = files.get(name);
    if (text !== undefined) return ts.createSourceFile(name, text, language, true);
    return getSourceFile.call(host, name, language, ...rest);
  };
  const program = ts.createProgram([...files.keys()], COMPILER_OPTIONS, host);
  bySnippet = new Map([...files.keys()].map((name) => [name, []]));
  other = [];
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n  ");
    const file = diagnostic.file;
    const list = file === undefined ? undefined : bySnippet.get(file.fileName);
    if (file === undefined || list === undefined || diagnostic.start === undefined) {
      const where = file === undefined ? "" : `${file.fileName}: `;
      other.push(`${where}error TS${diagnostic.code}: ${message}`);
      continue;
    }
    const snippet = snippets.find((s) => fileOf(s) === file.fileName) as Snippet;
    const { line, character } = file.getLineAndCharacterOfPosition(diagnostic.start);
    const source = snippet.code.split("\n")[line] ?? "";
    list.push(
      `README.md:${snippet.line + line}:${character + 1}: error TS${diagnostic.code}: ${message}\n` +
        `    ${source.trim()}`,
    );
  }
}

beforeAll(() => {
  // The snippets are checked against dist/: build it (incremental, quick when up to date).
  try {
    execFileSync(join(root, "node_modules/.bin/tsc"), ["-b"], { cwd: root, stdio: "pipe" });
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`tsc -b failed, so the README cannot be checked:\n${stdout}${stderr}`);
  }
  check();
}, 300_000);

describe("README.md's TypeScript snippets compile against the built packages", () => {
  it("finds the snippets, and nothing outside them fails", () => {
    expect(snippets.length).toBeGreaterThan(5);
    expect(other.join("\n")).toBe("");
  });

  it.each(snippets.map((s) => [s.line, s.title, s] as const))(
    "README.md line %i: %s",
    (line, _title, snippet) => {
      const errors = bySnippet.get(fileOf(snippet)) ?? [];
      if (errors.length > 0) {
        throw new Error(
          `the \`\`\`ts block at README.md line ${line} does not compile:\n${errors.join("\n")}`,
        );
      }
    },
  );
});

describe("README.md's links within itself", () => {
  it("every #anchor link names a heading of the README", () => {
    const text = readFileSync(README, "utf8");
    const anchors = headingAnchors(text);
    const broken = text
      .split("\n")
      .flatMap((content, i) =>
        [...content.matchAll(/\]\(#([^)\s]+)\)/g)].map((m) => ({ line: i + 1, anchor: m[1] })),
      )
      .filter(({ anchor }) => !anchors.has(anchor as string))
      .map(({ line, anchor }) => `README.md:${line}: no heading has the anchor #${anchor}`);
    expect(broken.join("\n")).toBe("");
  });
});

describe("README.md's commands work on a fresh machine", () => {
  it("no bare `pnpm` before the Development section says how to get it (npx -y pnpm@10.34.9)", () => {
    const lines = readFileSync(README, "utf8").split("\n");
    const development = lines.findIndex((l) => l.trim() === "## Development");
    expect(development, 'README.md has no "## Development" section').toBeGreaterThan(0);
    const bare: string[] = [];
    let fence: "shell" | "other" | null = null;
    lines.slice(0, development).forEach((content, i) => {
      const open = /^\s*```\s*(\w*)/.exec(content);
      if (open !== null) {
        if (fence !== null) fence = null;
        else fence = /^(sh|bash|shell|console|)$/.test(open[1] ?? "") ? "shell" : "other";
        return;
      }
      if (fence === "other") return;
      // In a shell block, the line; in the text, each `command` in backticks.
      const commands =
        fence === "shell" ? [content] : [...content.matchAll(/`([^`]*)`/g)].map((m) => m[1] ?? "");
      const isBare = (command: string) =>
        /(^|[\s;&|(])pnpm\s/.test(command.replace(/npx -y pnpm@\S+/g, ""));
      if (commands.some(isBare)) {
        bare.push(
          `README.md:${i + 1}: bare \`pnpm\` (write \`npx -y pnpm@10.34.9 …\`): ${content.trim()}`,
        );
      }
    });
    expect(bare.join("\n")).toBe("");
  });
});
