// The README's "Through the sandbox" path, followed as written beside the Express quick start
// (`REPORTKIT_TOKEN=secret npx tsx server.ts`): the sandbox in one shell with the export line
// the README gives, the webhook created and the report triggered in another. The first push
// must be answered 200. Only the ports change (3000 and 4010 are likely taken on a shared
// machine), and `npx @reportkit/cli` is the CLI built from this workspace.
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { typescriptSnippets } from "./snippets.js";

const root = join(import.meta.dirname, "../..");
const README = join(root, "README.md");
const CLI = join(root, "packages/cli/dist/cli.js");

/** The lines under `### <title>`, up to the next heading. */
function subsection(title: string): { from: number; to: number; text: string } {
  const lines = readFileSync(README, "utf8").split("\n");
  const from = lines.findIndex((l) => l.trim() === `### ${title}`);
  if (from === -1) throw new Error(`README.md has no "### ${title}" section`);
  let to = lines.findIndex((l, i) => i > from && /^#{2,3} /.test(l));
  if (to === -1) to = lines.length;
  return { from: from + 1, to, text: lines.slice(from, to).join("\n") };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];
let receiverPort: number;
let sandboxPort: number;
let receiverOutput = "";
let sandboxOutput = "";

/** `npx @reportkit/cli …` as the built CLI; everything else in the script as bash runs it. */
const PRELUDE = `npx() { if [ "$1" = "@reportkit/cli" ]; then shift; "${process.execPath}" "${CLI}" "$@"; else command npx "$@"; fi; }`;

function withPorts(text: string): string {
  return text
    .replace(/localhost:3000\b/g, `localhost:${receiverPort}`)
    .replace(/127\.0\.0\.1:4010\b/g, `127.0.0.1:${sandboxPort}`);
}

function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of ["REPORTKIT_TOKEN", "REPORTKIT_API_TOKEN", "REPORTKIT_BASE_URL"]) {
    delete env[key];
  }
  return env;
}

function bash(script: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      "bash",
      ["-c", `set -e\n${PRELUDE}\n${script}`],
      { cwd: root, env: cleanEnv(), timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        resolve({ code, out: `${stdout}${stderr}` });
      },
    );
  });
}

async function until(check: () => boolean, what: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not in time: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const path = subsection("Through the sandbox");
const blocks = [...path.text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);

beforeAll(async () => {
  execFileSync(join(root, "node_modules/.bin/tsc"), ["-b", "packages/cli"], {
    cwd: root,
    stdio: "inherit",
  });
  receiverPort = await freePort();
  sandboxPort = await freePort();

  // The Express quick start, as its run line says: REPORTKIT_TOKEN=secret npx tsx server.ts.
  const first = subsection("Express");
  const server = typescriptSnippets(README).find(
    (s) => s.line > first.from && s.line <= first.to && /\blisten\(/.test(s.code),
  );
  if (server === undefined) throw new Error("README.md: no Express quick start server");
  const dir = mkdtempSync(join(tmpdir(), "reportkit-sandbox-path-"));
  dirs.push(dir);
  symlinkSync(join(root, "test/node_modules"), join(dir, "node_modules"), "dir");
  writeFileSync(join(dir, "package.json"), `{ "type": "module" }\n`);
  writeFileSync(join(dir, "server.ts"), server.code.replace(/\b3000\b/g, String(receiverPort)));
  const receiver = spawn(
    join(root, "node_modules/.bin/tsx"),
    ["--conditions=source", "server.ts"],
    {
      cwd: dir,
      env: { ...cleanEnv(), REPORTKIT_TOKEN: "secret" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(receiver);
  receiver.stdout?.on("data", (chunk) => {
    receiverOutput += chunk;
  });
  receiver.stderr?.on("data", (chunk) => {
    receiverOutput += chunk;
  });

  // The sandbox's block, in a shell of its own (its `--port` aside: the only addition).
  const sandboxBlock = withPorts(blocks[0] ?? "").replace(
    /(npx @reportkit\/cli sandbox[^\n]*)/,
    `$1 --port ${sandboxPort}`,
  );
  const sandbox = spawn("bash", ["-c", `set -e\n${PRELUDE}\n${sandboxBlock}`], {
    cwd: root,
    env: cleanEnv(),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  children.push(sandbox);
  sandbox.stdout?.on("data", (chunk) => {
    sandboxOutput += chunk;
  });
  sandbox.stderr?.on("data", (chunk) => {
    sandboxOutput += chunk;
  });
  await until(
    () => /listening on/.test(sandboxOutput),
    () => sandboxOutput,
  );
  await until(
    () => /listening on/.test(receiverOutput),
    () => receiverOutput,
  );
}, 90_000);

afterAll(() => {
  for (const child of children) {
    if (child.exitCode !== null || child.pid === undefined) continue;
    // The sandbox runs in a bash of its own process group: stop both.
    if (child.spawnargs[0] === "bash") process.kill(-child.pid, "SIGTERM");
    else child.kill("SIGTERM");
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("README.md: Through the sandbox, followed as written with REPORTKIT_TOKEN=secret", () => {
  it("has the two blocks: the sandbox with REPORTKIT_TOKEN, then create --token and trigger", () => {
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toMatch(/^export REPORTKIT_TOKEN=secret\b/m);
    expect(blocks[1]).toMatch(/webhooks create .*--token "\$REPORTKIT_TOKEN"/);
    expect(blocks[1]).toMatch(/trigger delivery --webhook <id>/);
  });

  it("the sandbox says whose token its pushes carry, and its hint creates the webhook with --token", () => {
    expect(sandboxOutput).toContain(
      "  push bearer  a webhook's --token, else REPORTKIT_TOKEN of this environment\n",
    );
    expect(sandboxOutput).toContain(
      '  reportkit webhooks create --name local --uri http://127.0.0.1:3000/webhooks --token "$REPORTKIT_TOKEN" --challenge\n',
    );
    expect(sandboxOutput).not.toMatch(/\bsecret\b/);
  });

  it("the webhook carries the receiver's token, passes the challenge, and the first push gets 200", async () => {
    const lines = withPorts(blocks[1] ?? "")
      .split("\n")
      .filter((l) => l.trim() !== "");
    const [exportLine, create, trigger] = lines as [string, string, string];
    const created = await bash(`${exportLine}\n${create}`);
    expect(created, created.out).toMatchObject({ code: 0 });
    expect(created.out).toMatch(/^bearer +set, from the webhook's token$/m);
    expect(created.out).toMatch(/^challenge +passed: the receiver answered the challenge/m);
    // The token is never printed: the challenge's URL shows it masked.
    expect(created.out).toMatch(/challenge=[0-9a-f]+&token=\*{8}/);
    expect(created.out).not.toMatch(/token=secret|Bearer secret/);
    const id = /^Created webhook (\S+)$/m.exec(created.out)?.[1] as string;

    const triggered = await bash(`${exportLine}\n${trigger.replace("<id>", id)}`);
    expect(triggered, triggered.out).toMatchObject({ code: 0 });
    expect(triggered.out).toMatch(/ {2}#1\/4 {2}200 {2}delivered/);
    await until(
      () => /^delivery \S+:1 919876543210 DELIVRD /m.test(receiverOutput),
      () => receiverOutput,
    );
    expect(sandboxOutput).toMatch(/#1\/4 {2}200 {2}delivered/);
  });

  it("a webhook created without --token is pushed with the sandbox's REPORTKIT_TOKEN: 200 too", async () => {
    const [exportLine] = withPorts(blocks[1] ?? "").split("\n") as [string];
    const created = await bash(
      `${exportLine}\nnpx @reportkit/cli webhooks create --name bare --uri http://localhost:${receiverPort}/webhooks`,
    );
    expect(created.out).toMatch(/^bearer +set, from the sandbox's REPORTKIT_TOKEN/m);
    const id = /^Created webhook (\S+)$/m.exec(created.out)?.[1] as string;
    const triggered = await bash(
      `${exportLine}\nnpx @reportkit/cli trigger delivery --webhook ${id} --wait`,
    );
    expect(triggered.out).toMatch(/ {2}#1\/4 {2}200 {2}delivered/);
  });
});
