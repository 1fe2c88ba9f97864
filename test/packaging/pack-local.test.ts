// `pnpm pack:local`, then what a user does with its tarballs: `npm i <tarball>` in empty npm
// projects, every @reportkit package from the tarballs (npm is told an unreachable registry for
// the @reportkit scope, and each lockfile entry must name a tarball of pack:local), the
// rest (express, Nest, commander …) from the npm registry, through npm's own cache. Then the
// README's Express quick start as written against the installed packages (its curl request,
// its log line), the installed `reportkit` binary, and the README's NestJS quick start.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishablePackages } from "../../scripts/publishable-packages.mjs";
import { curls, printed, runEnv } from "../readme/first-report.js";
import { typescriptSnippets } from "../readme/snippets.js";
import {
  answering,
  ended,
  type Running,
  reportkitSources,
  run,
  startProcess,
  succeed,
} from "./commands.js";

const root = join(import.meta.dirname, "../..");
const README = join(root, "README.md");
const readme = readFileSync(README, "utf8");
const tsx = join(root, "node_modules/.bin/tsx");
const SECRET = runEnv.REPORTKIT_SECRET ?? ""; // the README's run line and curl commands

/** The first TypeScript block after the README heading `### <title>`. */
function quickStart(title: string): string {
  const heading = readme.split("\n").indexOf(`### ${title}`) + 1;
  const snippet = typescriptSnippets(README).find((s) => s.line > heading);
  if (heading === 0 || snippet === undefined) throw new Error(`README.md: no "### ${title}" code`);
  return snippet.code;
}
const [verifyCurl = "", curl = ""] = curls;

const work = mkdtempSync(join(tmpdir(), "reportkit-pack-local-"));
const tarballs = join(work, "tarballs");
const project = (name: string) => join(work, name);
const running: Running[] = [];

/** `npm i` in a new `{ "type": "module" }` project; @reportkit may come from nowhere else. */
async function npmProject(name: string, packages: string[]): Promise<string> {
  const dir = project(name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), `{ "name": "${name}", "type": "module" }\n`);
  await succeed(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      // Any attempt to fetch an @reportkit package from a registry fails.
      "--@reportkit:registry=http://127.0.0.1:9/",
      ...packages,
    ],
    { cwd: dir, timeoutMs: 180_000 },
  );
  return dir;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/** A quick start as server.ts in `dir`, on a free port, run as the README says (tsx). */
async function startQuickStart(
  dir: string,
  code: string,
): Promise<{ server: Running; port: number }> {
  const port = await freePort();
  writeFileSync(join(dir, "server.ts"), code.replace(/\b3000\b/g, String(port)));
  const server = startProcess(tsx, ["server.ts"], dir, runEnv);
  running.push(server);
  await answering(`http://127.0.0.1:${port}/webhooks`, server, 60_000);
  return { server, port };
}

const runCurl = async (port: number, command = curl) =>
  succeed("sh", ["-c", command.replace(/\b3000\b/g, String(port))], {
    cwd: work,
    timeoutMs: 30_000,
  });

async function waitForOutput(server: Running, text: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!server.output().includes(text)) {
    if (Date.now() > deadline) {
      throw new Error(
        `the server did not print "${text}" within 15 s; it printed:\n${server.output()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  const packed = await succeed("node", [join(root, "scripts/pack-local.mjs"), "--out", tarballs], {
    cwd: root,
    timeoutMs: 300_000,
  });
  expect(packed).toContain(
    `pack:local: ${publishablePackages(root).length} tarballs in ${tarballs}`,
  );
  // One after the other: three npm installs at once only slow each other on two cores.
  await npmProject("express-app", [join(tarballs, "express.tgz"), "express"]);
  await npmProject("cli", [join(tarballs, "cli.tgz")]);
  await npmProject("nestjs-app", [
    join(tarballs, "nestjs.tgz"),
    join(tarballs, "express.tgz"),
    "@nestjs/core",
    "@nestjs/common",
    "@nestjs/platform-express",
    "reflect-metadata",
    "rxjs",
  ]);
}, 900_000);

afterAll(async () => {
  await Promise.all(running.map((server) => server.stop()));
  rmSync(work, { recursive: true, force: true });
});

describe("pnpm pack:local, installed with npm into empty projects", () => {
  it("is the root script pack:local, and the README says how to install from its tarballs", () => {
    const scripts = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts;
    expect(scripts["pack:local"]).toBe("node scripts/pack-local.mjs");
    expect(readme).toContain("npx -y pnpm@10.34.9 pack:local");
    expect(readme).toContain(".tarballs/express.tgz");
    expect(readFileSync(join(root, ".gitignore"), "utf8")).toMatch(/^\.tarballs\/$/m);
  });

  it.each([
    ["express-app", ["@reportkit/core", "@reportkit/express", "@reportkit/wire"]],
    ["cli", ["@reportkit/cli", "@reportkit/client", "@reportkit/sandbox", "@reportkit/wire"]],
    [
      "nestjs-app",
      ["@reportkit/core", "@reportkit/express", "@reportkit/nestjs", "@reportkit/wire"],
    ],
  ])("%s: every @reportkit package came from its pack:local tarball", (name, expected) => {
    const sources = reportkitSources(project(name));
    expect([...sources.keys()].sort()).toEqual(expected);
    for (const [pkg, source] of sources) {
      expect(source, pkg).toBe(join(tarballs, `${pkg.slice("@reportkit/".length)}.tgz`));
    }
  });

  it("the CLI brings no database driver or queue: pg, ioredis, BullMQ and their adapters are optional", () => {
    for (const absent of ["pg", "ioredis", "bullmq", "@reportkit/postgres", "@reportkit/redis"]) {
      expect(existsSync(join(project("cli"), "node_modules", absent)), absent).toBe(false);
    }
  });

  it("the NestJS app on Express brings no Fastify", () => {
    for (const absent of ["fastify", "@reportkit/fastify", "fastify-plugin"]) {
      expect(existsSync(join(project("nestjs-app"), "node_modules", absent)), absent).toBe(false);
    }
  });

  it("runs the README's Express quick start: the curl request gets 200 and the server prints the report; the installed CLI's help, send and a missing store", async () => {
    const dir = project("express-app");
    const { server, port } = await startQuickStart(dir, quickStart("Express"));
    const verified = await runCurl(port, verifyCurl);
    expect(verified).toMatch(/^HTTP\/1\.1 200/);
    expect(verified).toContain('{"challenge":"a234qwe"}');
    const reply = await runCurl(port);
    expect(reply).toMatch(/^HTTP\/1\.1 200/);
    expect(reply).toContain('{"ok":true}');
    expect(printed).toMatch(
      /^delivery b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1 919876543210 DELIVRD /,
    );
    await waitForOutput(server, printed);

    const reportkit = join(project("cli"), "node_modules/.bin/reportkit");
    const help = await succeed(reportkit, ["--help"], { cwd: project("cli"), timeoutMs: 30_000 });
    for (const command of ["sandbox", "webhooks", "send", "journal", "replay", "queue"]) {
      expect(help).toContain(command);
    }
    const to = `http://127.0.0.1:${port}/webhooks`;
    const sent = await run(reportkit, ["send", "delivery", "--to", to, "--secret", SECRET], {
      cwd: project("cli"),
      timeoutMs: 60_000,
    });
    expect(sent.code, sent.output).toBe(0);
    expect(sent.output).toContain("200");
    expect(sent.output).not.toContain(SECRET);
    // A second delivery line: the CLI's report, with an id of its own.
    const deadline = Date.now() + 15_000;
    while (
      server
        .output()
        .split("\n")
        .filter((l) => l.startsWith("delivery ")).length < 2
    ) {
      if (Date.now() > deadline) throw new Error(`no second delivery line:\n${server.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    const journal = await run(
      reportkit,
      ["journal", "list", "--db", "postgres://127.0.0.1:9/app"],
      {
        cwd: project("cli"),
        timeoutMs: 30_000,
      },
    );
    expect(journal.code).toBe(1);
    expect(journal.output.trim()).toBe(
      "reportkit: install @reportkit/postgres to read a Postgres journal: npm i @reportkit/postgres pg",
    );
    const queue = await run(reportkit, ["queue", "stats", "--redis", "redis://127.0.0.1:9"], {
      cwd: project("cli"),
      timeoutMs: 30_000,
    });
    expect(queue.code).toBe(1);
    expect(queue.output.trim()).toBe(
      "reportkit: install @reportkit/bullmq to look after queue mode's jobs: npm i @reportkit/bullmq bullmq ioredis",
    );
  }, 240_000);

  it("boots the README's NestJS quick start from the installed tarball; without @reportkit/express it says what to install", async () => {
    const dir = project("nestjs-app");
    // What the NestJS quick start asks of tsconfig.json (tsx needs experimentalDecorators).
    writeFileSync(
      join(dir, "tsconfig.json"),
      `{ "compilerOptions": { "experimentalDecorators": true, "emitDecoratorMetadata": true } }\n`,
    );
    const { server, port } = await startQuickStart(dir, quickStart("NestJS"));
    const reply = await runCurl(port);
    expect(reply).toMatch(/^HTTP\/1\.1 200/);
    expect(reply).toContain('{"ok":true}');
    await waitForOutput(server, printed);
    await server.stop();

    const adapter = join(dir, "node_modules/@reportkit/express");
    renameSync(adapter, `${adapter}.away`);
    try {
      const app = startProcess(tsx, ["server.ts"], dir, runEnv);
      running.push(app);
      const { code, output } = await ended(app, 60_000);
      expect(code).not.toBe(0);
      expect(output).toContain(
        "reportkit: this NestJS app runs on @nestjs/platform-express, and ReportkitModule mounts its receiver there with @reportkit/express, which is not installed. Install it beside @reportkit/nestjs: npm i @reportkit/express",
      );
    } finally {
      renameSync(`${adapter}.away`, adapter);
    }
  }, 240_000);
});
