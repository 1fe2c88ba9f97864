// The sandbox and CLI commands of docs/sandbox-and-cli.md (the README's section, moved there),
// run as written (bash, curl and the built `reportkit`) against a real `reportkit sandbox`, with
// the `export` line that sandbox printed: every URL they build from $REPORTKIT_BASE_URL must
// reach the sandbox.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createClient } from "@reportkit/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, CLI, ROOT } from "../support/reportkit-cli.js";

const PAGE = "docs/sandbox-and-cli.md";
const SECTION = "# Sandbox, management-API client and CLI";

/** The shell commands of the sandbox/CLI page, continuation lines joined. */
function readmeCommands(): string[] {
  const readme = readFileSync(join(ROOT, PAGE), "utf8");
  const start = readme.indexOf(SECTION);
  expect(start, `${PAGE} has a "${SECTION}" section`).toBeGreaterThan(-1);
  const end = readme.indexOf("\n# ", start + SECTION.length);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  return blocks.flatMap((block) =>
    block
      .replace(/\\\n\s*/g, "")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== ""),
  );
}

/** A documented command made runnable: comments and [optional] parts dropped, <id> filled in. */
function runnable(command: string, webhookId: string): string {
  const line = command
    .replace(/\s+#\s.*$/, "")
    .replace(/\s*\[[^\]]*\]/g, "")
    .replaceAll("<id>", webhookId);
  expect(line, `no placeholder left in: ${command}`).not.toMatch(/<[a-z ]+>/);
  return line;
}

function bash(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      "bash",
      ["-c", `set -e\nreportkit() { "${process.execPath}" "${CLI}" "$@"; }\n${script}`],
      { cwd: ROOT, env, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        resolve({ code, out: `${stdout}${stderr}` });
      },
    );
  });
}

let sandbox: ChildProcess;
let printed = "";
let receiver: http.Server;
let receiverUrl: string;
let received = 0;

beforeAll(async () => {
  buildCli();
  receiver = http.createServer((req, res) => {
    received++;
    req.resume();
    req.on("end", () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/reports`;
  const env = { ...process.env };
  delete env.REPORTKIT_API_TOKEN;
  delete env.REPORTKIT_BASE_URL;
  sandbox = spawn(process.execPath, [CLI, "sandbox", "--port", "0"], { cwd: ROOT, env });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no export line in: ${printed}`)), 15_000);
    sandbox.stdout?.on("data", (chunk) => {
      printed += chunk;
      if (/^ {2}export .*\n/m.test(printed)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
});

afterAll(async () => {
  sandbox?.kill("SIGTERM");
  await new Promise<void>((resolve) => {
    receiver?.close(() => resolve());
    receiver?.closeAllConnections();
  });
});

describe("README sandbox and CLI commands", () => {
  it("run as written against a real sandbox, with the export line it printed", async () => {
    const exportLine = /^ {2}(export .*)$/m.exec(printed)?.[1]?.trim() ?? "";
    const env = { ...process.env };
    delete env.REPORTKIT_API_TOKEN;
    delete env.REPORTKIT_BASE_URL;
    delete env.REPORTKIT_TOKEN;
    const baseUrl = /REPORTKIT_BASE_URL=(\S+)/.exec(exportLine)?.[1] as string;
    const apiToken = /REPORTKIT_API_TOKEN=(\S+)/.exec(exportLine)?.[1] as string;
    const client = createClient({ baseUrl, token: apiToken });

    const commands = readmeCommands();
    // The README's own export line has the printed one's shape.
    const documented = commands.find((c) => c.startsWith("export REPORTKIT_BASE_URL="));
    expect(documented).toMatch(
      /^export REPORTKIT_BASE_URL=http:\/\/127\.0\.0\.1:4010\/api\/v2\/ REPORTKIT_API_TOKEN=\S+/,
    );
    expect(exportLine).toMatch(
      /^export REPORTKIT_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/api\/v2\/ REPORTKIT_API_TOKEN=sandbox-[0-9a-f]{24}$/,
    );

    const runs = commands.filter(
      (c) =>
        (c.startsWith("curl ") && c.includes("$REPORTKIT_BASE_URL")) ||
        c.startsWith("reportkit webhooks ") ||
        c.startsWith("reportkit trigger "),
    );
    expect(runs.filter((c) => c.startsWith("curl ")).length).toBeGreaterThanOrEqual(2);
    expect(runs.filter((c) => c.startsWith("reportkit trigger ")).length).toBeGreaterThanOrEqual(2);
    expect(runs.filter((c) => c.startsWith("reportkit webhooks ")).length).toBeGreaterThanOrEqual(
      5,
    );
    for (const command of runs) {
      // A fresh webhook for each command: one of them deletes it.
      const hook = await client.webhooks.create({ name: "readme", uri: receiverUrl });
      const line = runnable(command, hook.id);
      const run = await bash(`${exportLine}\n${line}`, env);
      expect({ command: line, code: run.code, out: run.out }).toMatchObject({ code: 0 });
      if (line.startsWith("curl ")) {
        expect(JSON.parse(run.out), line).toMatchObject({ status: "OK", code: 200 });
      }
    }
    // The curl and trigger commands really made the sandbox push to the receiver.
    await expect.poll(() => received, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
  });
});
