// The queue-mode and Redis-dedupe snippets of docs/, run as written (`npx tsx <file>.ts`, here
// with the workspace's packages) against a real redis-server: the receiver and the worker of
// docs/queue-mode.md handle a report end to end with nothing to replace, and two instances of
// docs/duplicates-and-retries.md's Redis receiver, each on the PORT it is given, run a report's
// handler once between them.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_DLR_TEXT } from "../fixtures/samples.js";
import { type RedisServer, requireRedisServer, startRedisServer } from "../support/redis-server.js";
import { type Snippet, typescriptSnippets } from "./snippets.js";

const root = join(import.meta.dirname, "../..");
const TOKEN = "secret";
const children: ChildProcess[] = [];
const dirs: string[] = [];
let redis: RedisServer;

beforeAll(async () => {
  if (requireRedisServer("test/readme/redis-examples.test.ts")) redis = await startRedisServer();
});

afterAll(async () => {
  await Promise.all(children.map(stop));
  await redis?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** SIGTERM (the snippets' own shutdown), then SIGKILL if it has not exited within 10 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function snippet(page: string, test: (code: string) => boolean): Snippet {
  const found = typescriptSnippets(join(root, page)).find((s) => test(s.code));
  if (found === undefined) throw new Error(`${page}: the snippet is missing`);
  return found;
}

/** Runs a snippet as its page says (`npx tsx file.ts`), unchanged, in a project of its own. */
function run(code: string, env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), "reportkit-doc-example-"));
  dirs.push(dir);
  symlinkSync(join(root, "test/node_modules"), join(dir, "node_modules"), "dir");
  writeFileSync(join(dir, "package.json"), `{ "type": "module" }\n`);
  writeFileSync(join(dir, "main.ts"), code);
  const child = spawn(join(root, "node_modules/.bin/tsx"), ["--conditions=source", "main.ts"], {
    cwd: dir,
    env: { ...process.env, REDIS_URL: redis.url, REPORTKIT_SECRET: TOKEN, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  return { child, output: () => output };
}

async function until(check: () => boolean, what: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not in time:\n${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function push(port: number) {
  return fetch(`http://127.0.0.1:${port}/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: SAMPLE_DLR_TEXT,
  });
}

describe.runIf(requireRedisServer("test/readme/redis-examples.test.ts"))(
  "docs' Redis examples, run as written",
  () => {
    it("docs/queue-mode.md: the receiver answers 202 on PORT, the worker handles the report", async () => {
      const port = await freePort();
      const receiver = run(snippet("docs/queue-mode.md", (c) => c.includes("bullmqQueue(")).code, {
        PORT: String(port),
      });
      const worker = run(
        snippet(
          "docs/queue-mode.md",
          (c) => c.includes("createWorker(") && c.includes("@reportkit/bullmq"),
        ).code,
        {},
      );
      await until(
        () => receiver.output().includes(`listening on http://localhost:${port}/webhooks`),
        receiver.output,
      );
      const reply = await push(port);
      expect([reply.status, await reply.json()]).toEqual([202, { ok: true, queued: true }]);
      await until(
        () => /^delivery \S+:1 DELIVRD \S+ job \S+$/m.test(worker.output()),
        worker.output,
      );
      expect(worker.output()).not.toMatch(/Error|failed/);
    }, 60_000);

    it("docs/duplicates-and-retries.md: two instances on their own PORT, one handler run", async () => {
      const code = snippet("docs/duplicates-and-retries.md", (c) =>
        c.includes("redisDedupe("),
      ).code;
      const ports = [await freePort(), await freePort()];
      const instances = ports.map((port) => run(code, { PORT: String(port) }));
      for (const [i, instance] of instances.entries()) {
        await until(
          () => instance.output().includes(`listening on http://localhost:${ports[i]}/webhooks`),
          instance.output,
        );
      }
      const first = await push(ports[0] as number);
      const second = await push(ports[1] as number);
      expect(await first.json()).toEqual({ ok: true });
      expect(await second.json()).toEqual({ ok: true, duplicate: true });
      const handled = instances.map((i) => i.output().match(/ DELIVRD$/gm)?.length ?? 0);
      expect(handled).toEqual([1, 0]);
    }, 60_000);
  },
);
