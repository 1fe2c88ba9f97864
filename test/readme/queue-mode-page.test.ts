// docs/queue-mode.md's "On Postgres alone: pg-boss" followed as written, by a user with only
// Postgres: its receiver.ts and worker.ts in an empty project (the workspace's packages in
// place of the npm install), started with the page's run lines (DATABASE_URL pointed at a
// PostgreSQL of the test's own, the port a free one), the page's curl command sent, and the
// line the page says the worker prints awaited; the same report sent again adds nothing.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../support/postgres-server.js";
import { freePort } from "../support/redis-server.js";

const root = join(import.meta.dirname, "../..");
const PAGE = readFileSync(join(root, "docs/queue-mode.md"), "utf8");

/** The page's section under `## <title>`. */
function section(title: string): string {
  const from = PAGE.indexOf(`\n## ${title}\n`);
  if (from === -1) throw new Error(`docs/queue-mode.md has no "## ${title}" section`);
  const to = PAGE.indexOf("\n## ", from + 1);
  return PAGE.slice(from, to === -1 ? undefined : to);
}

const pgBoss = section("On Postgres alone: pg-boss");
/** A ```ts block of the section whose first line is `// <file>: …`. */
const file = (name: string) => {
  const found = [...pgBoss.matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((m) => m[1] as string)
    .find((code) => code.startsWith(`// ${name}:`));
  if (found === undefined) throw new Error(`the section has no ${name}`);
  return found;
};
/** The environment of the run line `… npx tsx <script>`. */
const runEnv = (script: string) => {
  const line = new RegExp(`\`((?:[A-Z_]+=\\S+ )+)npx tsx ${script.replace(".", "\\.")}\``).exec(
    pgBoss,
  );
  if (line === null) throw new Error(`the section has no run line for ${script}`);
  return Object.fromEntries(
    (line[1] as string)
      .trim()
      .split(" ")
      .map((pair) => pair.split("=") as [string, string]),
  );
};
const curl = /```sh\n(curl [\s\S]*?)```/.exec(pgBoss)?.[1] ?? "";
const printed = /the worker prints\s+`([^`]+)`/.exec(pgBoss)?.[1] ?? "";

function sh(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("sh", ["-c", command], (error, stdout) => (error ? reject(error) : resolve(stdout)));
  });
}

describe.runIf(requirePostgresServer("queue-mode-page.test.ts"))(
  "docs/queue-mode.md, pg-boss from an empty project",
  () => {
    let server: PostgresServer;
    let dir: string;
    const children: ChildProcess[] = [];
    const outputs = new Map<string, () => string>();

    function start(script: string, env: Record<string, string>, ready: RegExp): Promise<void> {
      const child = spawn(join(root, "node_modules/.bin/tsx"), ["--conditions=source", script], {
        cwd: dir,
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.push(child);
      let output = "";
      outputs.set(script, () => output);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${script}:\n${output}`)), 30_000);
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          if (ready.test(output)) {
            clearTimeout(timer);
            resolve();
          }
        };
        child.stdout?.on("data", onData);
        child.stderr?.on("data", onData);
        child.once("exit", (code) => reject(new Error(`${script} exited (${code}):\n${output}`)));
      });
    }

    beforeAll(async () => {
      server = await startPostgresServer();
      dir = mkdtempSync(join(tmpdir(), "reportkit-queue-mode-"));
      // The page's npm init and npm install: a module project whose packages are the workspace's.
      symlinkSync(join(root, "test/node_modules"), join(dir, "node_modules"), "dir");
      writeFileSync(join(dir, "package.json"), `{ "type": "module" }\n`);
      writeFileSync(join(dir, "receiver.ts"), file("receiver.ts"));
      writeFileSync(join(dir, "worker.ts"), file("worker.ts"));
    });
    afterAll(async () => {
      for (const child of children) if (child.exitCode === null) child.kill();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      await server?.close();
    });

    it("a report sent as the page says is answered 202 and recorded once by the worker", async () => {
      expect(printed).toMatch(/^delivery \S+ DELIVRD recorded \(attempt 1\)$/);
      const port = await freePort();
      const database = { DATABASE_URL: server.url };
      await start(
        "receiver.ts",
        { ...runEnv("receiver.ts"), ...database, PORT: String(port) },
        /listening on/,
      );
      await start("worker.ts", { ...runEnv("worker.ts"), ...database }, /worker ready/);
      const send = () => sh(curl.replaceAll("localhost:3000", `127.0.0.1:${port}`));
      const reply = await send();
      expect(reply).toMatch(/^HTTP\/1\.1 202 /);
      expect(reply.trim().endsWith('{"ok":true,"queued":true}')).toBe(true);
      await vi.waitFor(() => expect(outputs.get("worker.ts")?.()).toContain(printed), {
        timeout: 15_000,
      });
      // Again: 202, and nothing more recorded.
      expect(await send()).toMatch(/^HTTP\/1\.1 202 /);
      const db = new pg.Client({ connectionString: server.url });
      await db.connect();
      try {
        const counts = await db.query(
          "SELECT (SELECT count(*) FROM deliveries)::int AS deliveries, (SELECT count(*) FROM pgboss.job)::int AS jobs, (SELECT count(*) FROM reportkit_inbox)::int AS processed",
        );
        expect(counts.rows[0]).toEqual({ deliveries: 1, jobs: 1, processed: 1 });
      } finally {
        await db.end();
      }
      expect(outputs.get("worker.ts")?.().split(printed)).toHaveLength(2);
    });
  },
);
