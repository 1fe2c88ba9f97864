// The README's quick starts run as written: each server of "Receive your first report" is
// started as a user would (`REPORTKIT_SECRET=secret REPORTKIT_VERIFICATION_TOKEN=9012XX npx tsx
// server.ts`, here with the workspace sources), and the README's own curl commands of "Send
// yourself a report" (the webhook's verification, then a report) are run against it.
// Only the port changes (3000 is likely taken on a shared machine). curl is needed: absent on
// a dev machine, one line and no run; absent in CI, an error.
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { curls, firstReport, printed, runEnv } from "./first-report.js";
import { type Snippet, typescriptSnippets } from "./snippets.js";

const root = join(import.meta.dirname, "../..");
const README = join(root, "README.md");
const SECRET = "secret"; // what the README's run line and curl commands use

function hasCurl(): boolean {
  try {
    execFileSync("curl", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    if (process.env.CI) throw new Error("quick-start.test.ts: curl is required in CI");
    console.log(
      "quick-start.test.ts: curl is not installed, so the README's quick starts are not run",
    );
    return false;
  }
}

const first = firstReport;
const servers = typescriptSnippets(README).filter(
  (s) => s.line > first.from && s.line <= first.to && /\b(listen|serve)\(/.test(s.code),
);
const [verifyCurl, curl] = curls;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Writes the snippet as server.ts in a fresh directory whose packages are the workspace's. */
async function start(snippet: Snippet, port: number) {
  const dir = mkdtempSync(join(tmpdir(), "reportkit-quick-start-"));
  dirs.push(dir);
  symlinkSync(join(root, "test/node_modules"), join(dir, "node_modules"), "dir");
  // What the README says to start from: npm init -y && npm pkg set type=module.
  writeFileSync(join(dir, "package.json"), `{ "type": "module" }\n`);
  // What the NestJS quick start asks for (and every Nest project has); no other one uses it.
  writeFileSync(
    join(dir, "tsconfig.json"),
    `{ "compilerOptions": { "experimentalDecorators": true, "emitDecoratorMetadata": true } }\n`,
  );
  writeFileSync(join(dir, "server.ts"), snippet.code.replace(/\b3000\b/g, String(port)));
  const child = spawn(join(root, "node_modules/.bin/tsx"), ["--conditions=source", "server.ts"], {
    cwd: dir,
    env: { ...process.env, ...runEnv },
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
  // Up when it answers at all (a 401 to this unauthenticated probe).
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`README.md line ${snippet.line}: the server exited:\n${output}`);
    }
    try {
      await fetch(`http://127.0.0.1:${port}/webhooks`, { method: "POST" });
      break;
    } catch {
      if (Date.now() > deadline) {
        throw new Error(`README.md line ${snippet.line}: not listening after 30 s:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return { output: () => output, child };
}

function runCurl(command: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("sh", ["-c", command.replace(/\b3000\b/g, String(port))], (error, stdout, stderr) => {
      if (error) reject(new Error(`curl failed: ${stderr}`));
      else resolve(stdout);
    });
  });
}

describe.runIf(hasCurl())("README.md's quick starts, run as written", () => {
  it("has the servers, the run line, the two curl commands and the printed line it promises", () => {
    expect(servers.map((s) => s.code.split("\n")[0])).toHaveLength(5);
    expect(runEnv).toEqual({ REPORTKIT_SECRET: SECRET, REPORTKIT_VERIFICATION_TOKEN: "9012XX" });
    expect(curls).toHaveLength(2);
    expect(verifyCurl).toContain("http://localhost:3000/webhooks?token=9012XX");
    expect(curl).toContain("http://localhost:3000/webhooks");
    expect(printed).toMatch(
      /^delivery b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1 919876543210 DELIVRD /,
    );
  });

  it.each(servers.map((s) => [s.line, s] as const))(
    'README.md line %i: serves /webhooks, and the curl command gets 200 {"ok":true}',
    async (line, snippet) => {
      const port = await freePort();
      const server = await start(snippet, port);
      // The webhook's verification, as the provider sends it when the webhook is created.
      const verified = await runCurl(verifyCurl as string, port);
      expect(verified, `README.md line ${line}`).toMatch(/^HTTP\/1\.1 200/);
      expect(verified).toContain('{"challenge":"a234qwe"}');
      const reply = await runCurl(curl as string, port);
      expect(reply, `README.md line ${line}`).toMatch(/^HTTP\/1\.1 200/);
      expect(reply).toContain('{"ok":true}');
      // The handler ran, and printed (or logged) the report.
      await expect
        .poll(server.output, { timeout: 15_000 })
        .toContain("b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1");
      if (line === servers[0]?.line) {
        // What the README says the first server prints, and its 401 and 400.
        expect(server.output()).toContain(printed);
        const url = `http://localhost:${port}/webhooks`;
        expect((await fetch(url, { method: "POST", body: "{}" })).status).toBe(401);
        const missing = await fetch(url, {
          method: "POST",
          headers: { authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
          body: JSON.stringify({ id: "x:1", mobile: "919876543210" }),
        });
        expect(missing.status).toBe(400);
        expect(await missing.text()).toContain("status");
      }
      server.child.kill();
    },
    60_000,
  );
});
