// The README's "Through the sandbox" path, followed as written beside the Express quick start,
// run as the README's run line says (`REPORTKIT_…=… npx tsx server.ts`, read from the README):
// the sandbox in one shell with the export line the README gives, the webhook created (and so
// verified, with the provider's handshake) and the report triggered in another. The webhook must
// be verified and the first push answered 200. Only the ports change (3000 and 4010 are likely
// taken on a shared machine), and `npx @reportkit/cli` is the CLI built from this workspace.
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
  for (const key of [
    "REPORTKIT_SECRET",
    "REPORTKIT_TOKEN",
    "REPORTKIT_VERIFICATION_TOKEN",
    "REPORTKIT_API_TOKEN",
    "REPORTKIT_BASE_URL",
  ]) {
    delete env[key];
  }
  return env;
}

/**
 * The variables the README's run line gives the quick start's server, e.g.
 * `REPORTKIT_SECRET=secret REPORTKIT_VERIFICATION_TOKEN=verify-me npx tsx server.ts`.
 */
function runLineEnv(): Record<string, string> {
  const readme = readFileSync(README, "utf8");
  const line = /`((?:REPORTKIT_[A-Z_]+=\S+ )+)npx tsx server\.ts`/.exec(readme);
  if (line === null) throw new Error("README.md: no `REPORTKIT_…=… npx tsx server.ts` run line");
  return Object.fromEntries(
    (line[1] as string)
      .trim()
      .split(/\s+/)
      .map((pair) => pair.split("=") as [string, string]),
  );
}

/** The value a block's `export` line gives `name`, if any. */
function exported(block: string, name: string): string | undefined {
  const line = block.split("\n").find((l) => l.startsWith("export "));
  return new RegExp(`\\b${name}=(\\S+)`).exec(line ?? "")?.[1];
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
const serverEnv = runLineEnv();

beforeAll(async () => {
  execFileSync(join(root, "node_modules/.bin/tsc"), ["-b", "packages/cli"], {
    cwd: root,
    stdio: "inherit",
  });
  receiverPort = await freePort();
  sandboxPort = await freePort();

  // The Express quick start, as the README's run line says.
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
      env: { ...cleanEnv(), ...serverEnv },
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

describe("README.md: Through the sandbox, followed as written beside the quick start's server", () => {
  it("has the two blocks: the sandbox with REPORTKIT_SECRET, then create --secret --token --challenge and trigger", () => {
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toMatch(/^export REPORTKIT_SECRET=\S+/m);
    expect(blocks[1]).toMatch(
      /webhooks create .*--secret "\$REPORTKIT_SECRET" --token "\$REPORTKIT_VERIFICATION_TOKEN" --challenge/,
    );
    expect(blocks[1]).toMatch(/trigger delivery --webhook <id>/);
  });

  it("gives the webhook the quick start server's own secret (and verification token, if it has one)", () => {
    // The server's secret: REPORTKIT_SECRET, or REPORTKIT_TOKEN, its old name.
    const secret = serverEnv.REPORTKIT_SECRET ?? serverEnv.REPORTKIT_TOKEN;
    const mismatch = (name: string) =>
      `the README's "Through the sandbox" exports a ${name} other than the quick start's run line (${JSON.stringify(serverEnv)}): make them the same value`;
    expect(exported(blocks[0] ?? "", "REPORTKIT_SECRET"), mismatch("REPORTKIT_SECRET")).toBe(
      secret,
    );
    expect(exported(blocks[1] ?? "", "REPORTKIT_SECRET"), mismatch("REPORTKIT_SECRET")).toBe(
      secret,
    );
    const token = exported(blocks[1] ?? "", "REPORTKIT_VERIFICATION_TOKEN");
    expect(token, "the third terminal exports REPORTKIT_VERIFICATION_TOKEN").toBeDefined();
    if (serverEnv.REPORTKIT_VERIFICATION_TOKEN !== undefined) {
      expect(token, mismatch("REPORTKIT_VERIFICATION_TOKEN")).toBe(
        serverEnv.REPORTKIT_VERIFICATION_TOKEN,
      );
    }
  });

  it("the sandbox says the secret is the bearer, and its hint creates the webhook with --secret and --token", () => {
    expect(sandboxOutput).toContain(
      "  push bearer  a webhook's --secret, else REPORTKIT_SECRET of this environment\n",
    );
    expect(sandboxOutput).toContain(
      '  reportkit webhooks create --name local --uri http://127.0.0.1:3000/webhooks --secret "$REPORTKIT_SECRET" --token "$REPORTKIT_VERIFICATION_TOKEN" --challenge\n',
    );
  });

  it("the webhook is verified, and the first push gets 200; no secret or token is printed", async () => {
    const lines = withPorts(blocks[1] ?? "")
      .split("\n")
      .filter((l) => l.trim() !== "");
    const [exportLine, create, trigger] = lines as [string, string, string];
    const token = exported(exportLine, "REPORTKIT_VERIFICATION_TOKEN") as string;
    const secret = exported(exportLine, "REPORTKIT_SECRET") as string;
    const created = await bash(`${exportLine}\n${create}`);
    expect(created, created.out).toMatchObject({ code: 0 });
    expect(created.out).toMatch(/^secret +set: the bearer of every push$/m);
    expect(created.out).toMatch(/^token +set: the validation key of the verification$/m);
    // Verified with the provider's handshake; its URL shows the token masked.
    expect(created.out).toMatch(
      /^verification +passed: the receiver answered the verification \(http:\/\/localhost:\d+\/webhooks\?token=\*{8}\)$/m,
    );
    const id = /^Created webhook (\S+)$/m.exec(created.out)?.[1] as string;
    await until(
      () => /verification \S+ → POST \S+\?token=\*{8} {2}200 {2}verified/.test(sandboxOutput),
      () => sandboxOutput,
    );

    const triggered = await bash(`${exportLine}\n${trigger.replace("<id>", id)}`);
    expect(triggered, triggered.out).toMatchObject({ code: 0 });
    expect(triggered.out).toMatch(/ {2}#1\/4 {2}200 {2}delivered/);
    await until(
      () => /^delivery \S+:1 919876543210 DELIVRD /m.test(receiverOutput),
      () => receiverOutput,
    );
    expect(sandboxOutput).toMatch(/#1\/4 {2}200 {2}delivered/);
    // Neither value in what the CLI and the sandbox printed ("secret" is also a word here).
    const printed = `${created.out}${triggered.out}${sandboxOutput}`;
    expect(printed).not.toContain(token);
    expect(printed).not.toContain(`Bearer ${secret}`);
    expect(printed).not.toMatch(new RegExp(`[=:]\\s*${secret}\\b`));
  });

  it("a webhook created without --secret is pushed with the sandbox's REPORTKIT_SECRET: 200 too", async () => {
    const [exportLine] = withPorts(blocks[1] ?? "").split("\n") as [string];
    const created = await bash(
      `${exportLine}\nnpx @reportkit/cli webhooks create --name bare --uri http://localhost:${receiverPort}/webhooks`,
    );
    expect(created.out).toMatch(
      /^secret +set, from the sandbox's REPORTKIT_SECRET \(the webhook has none\): the bearer of every push$/m,
    );
    const id = /^Created webhook (\S+)$/m.exec(created.out)?.[1] as string;
    const triggered = await bash(
      `${exportLine}\nnpx @reportkit/cli trigger delivery --webhook ${id} --wait`,
    );
    expect(triggered.out).toMatch(/ {2}#1\/4 {2}200 {2}delivered/);
  });
});
