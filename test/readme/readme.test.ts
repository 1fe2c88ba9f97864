// The documentation holds: README.md, ARCHITECTURE.md (when present), the pages under docs/
// and the packages' READMEs.
// - Every TypeScript snippet compiles, against the BUILT packages (dist/*.d.ts, as a user gets
//   them from npm), not their sources. `tsc -b` runs first. Each snippet is type-checked as a
//   module of its own, in memory (no file is written), as if it sat in test/ where
//   @reportkit/*, express, fastify, hono and @hono/node-server resolve. A failure names the file
//   and line and shows it. Placeholders a snippet needs are declared in it, visibly
//   (`declare function saveCall(...): Promise<void>;`).
// - Every relative link resolves, across files: the file or directory exists, and an #anchor
//   names a heading of the file it points into (links to the repository on GitHub are checked
//   the same way against the files here).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { brokenLink, documentationFiles, markdownLinks } from "./links.js";
import { type Snippet, typescriptSnippets } from "./snippets.js";

const root = join(import.meta.dirname, "../..");
const files = documentationFiles(root);
const read = (file: string) => readFileSync(join(root, file), "utf8");

/** A snippet and the Markdown file (relative to the root) it is in. */
type FileSnippet = Snippet & { file: string };
const snippets: FileSnippet[] = files.flatMap((file) =>
  typescriptSnippets(join(root, file)).map((snippet) => ({ ...snippet, file })),
);

/** In-memory file of a snippet: here module resolution finds test/node_modules. */
const fileOf = (snippet: FileSnippet) =>
  join(root, "test/readme", `${snippet.file.replaceAll("/", "--")}-line-${snippet.line}.ts`);

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
  // NestJS's decorators (docs/nestjs.md), as every Nest project's tsconfig has them.
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  // No "source" condition: @reportkit/* resolve to their dist types, as published.
};

/** Diagnostics by snippet file; `other` holds those of no snippet (config, libraries). */
let bySnippet: Map<string, string[]>;
let other: string[];

function check(): void {
  const sources = new Map<string, string>();
  for (const snippet of snippets) {
    // `export {}` makes a snippet without imports a module too (top-level await, own scope).
    sources.set(fileOf(snippet), `${snippet.code}\nexport {};\n`);
  }
  const host = ts.createCompilerHost(COMPILER_OPTIONS);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => sources.has(name) || fileExists.call(host, name);
  host.readFile = (name) => sources.get(name) ?? readFile.call(host, name);
  host.getSourceFile = (name, language, ...rest) => {
    const text = sources.get(name);
    if (text !== undefined) return ts.createSourceFile(name, text, language, true);
    return getSourceFile.call(host, name, language, ...rest);
  };
  const program = ts.createProgram([...sources.keys()], COMPILER_OPTIONS, host);
  bySnippet = new Map([...sources.keys()].map((name) => [name, []]));
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
    const snippet = snippets.find((s) => fileOf(s) === file.fileName) as FileSnippet;
    const { line, character } = file.getLineAndCharacterOfPosition(diagnostic.start);
    const source = snippet.code.split("\n")[line] ?? "";
    list.push(
      `${snippet.file}:${snippet.line + line}:${character + 1}: error TS${diagnostic.code}: ${message}\n` +
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
    throw new Error(`tsc -b failed, so the documentation cannot be checked:\n${stdout}${stderr}`);
  }
  check();
}, 300_000);

describe("the documentation's TypeScript snippets compile against the built packages", () => {
  it("finds the snippets, and nothing outside them fails", () => {
    expect(files).toContain("README.md");
    expect(snippets.length).toBeGreaterThan(5);
    expect(snippets.filter((s) => s.file === "README.md").length).toBeGreaterThan(3);
    expect(other.join("\n")).toBe("");
  });

  it.each(snippets.map((s) => [s.file, s.line, s.title, s] as const))(
    "%s line %i: %s",
    (file, line, _title, snippet) => {
      const errors = bySnippet.get(fileOf(snippet)) ?? [];
      if (errors.length > 0) {
        throw new Error(
          `the \`\`\`ts block at ${file} line ${line} does not compile:\n${errors.join("\n")}`,
        );
      }
    },
  );
});

describe("the documentation's links", () => {
  it.each(files)("every relative link of %s resolves (file, and #anchor to a heading)", (file) => {
    const broken = markdownLinks(read(file))
      .map(({ line, target }) => ({ line, problem: brokenLink(root, file, target) }))
      .filter(({ problem }) => problem !== null)
      .map(({ line, problem }) => `${file}:${line}: ${problem}`);
    expect(broken.join("\n")).toBe("");
  });

  it("every page under docs/ is linked from README.md or docs/README.md", () => {
    const linked = new Set(
      ["README.md", "docs/README.md"]
        .filter((file) => files.includes(file))
        .flatMap((file) =>
          markdownLinks(read(file))
            .filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
            .map(({ target }) =>
              join(file, "..", target.split("#")[0] ?? "").replaceAll("\\", "/"),
            ),
        ),
    );
    const unlinked = files.filter(
      (file) => file.startsWith("docs/") && file !== "docs/README.md" && !linked.has(file),
    );
    expect(unlinked.join("\n")).toBe("");
  });
});

describe("the documentation's commands work on a fresh machine", () => {
  it("no bare `pnpm` before a Development section says how to get it (npx -y pnpm@10.34.9)", () => {
    const development = files.filter((file) =>
      read(file)
        .split("\n")
        .some((l) => /^#{1,2} Development$/.test(l.trim())),
    );
    expect(development, 'no page has a "Development" section').not.toEqual([]);
    const bare: string[] = [];
    for (const file of files) {
      const lines = read(file).split("\n");
      const end = lines.findIndex((l) => /^#{1,2} Development$/.test(l.trim()));
      let fence: "shell" | "other" | null = null;
      lines.slice(0, end === -1 ? undefined : end).forEach((content, i) => {
        const open = /^\s*```\s*(\w*)/.exec(content);
        if (open !== null) {
          if (fence !== null) fence = null;
          else fence = /^(sh|bash|shell|console|)$/.test(open[1] ?? "") ? "shell" : "other";
          return;
        }
        if (fence === "other") return;
        // In a shell block, the line; in the text, each `command` in backticks.
        const commands =
          fence === "shell"
            ? [content]
            : [...content.matchAll(/`([^`]*)`/g)].map((m) => m[1] ?? "");
        const isBare = (command: string) =>
          /(^|[\s;&|(])pnpm\s/.test(command.replace(/npx -y pnpm@\S+/g, ""));
        if (commands.some(isBare)) {
          bare.push(
            `${file}:${i + 1}: bare \`pnpm\` (write \`npx -y pnpm@10.34.9 …\`): ${content.trim()}`,
          );
        }
      });
    }
    expect(bare.join("\n")).toBe("");
  });
});

describe("the documentation's Fastify registrations", () => {
  it("every `register(webhookReceiver…)` in prose or code is awaited: fastify.reportkit exists only after it", () => {
    const unawaited = files.flatMap((file) =>
      read(file)
        .split("\n")
        .flatMap((line, i) =>
          [...line.matchAll(/(\w+\s+)?\w+\.register\(webhookReceiver\b/g)]
            .filter((m) => m[1]?.trim() !== "await")
            .map(() => `${file}:${i + 1}: ${line.trim()}`),
        ),
    );
    expect(unawaited).toEqual([]);
  });
});
