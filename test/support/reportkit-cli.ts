// The real `reportkit` binary for the CLI's tests: packages/cli/dist/cli.js (what the package's
// "bin" runs), built with tsc -b, run in a child process with none of the REPORTKIT_* variables
// of the shell that started the tests (a developer's own would change what the CLI does).
// Also the same command run in this process (runReportkit), and a recording HTTP receiver for
// what `send`, `trigger` and the sandbox push.
import { execFile, execFileSync } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "@reportkit/cli";

/** The repository's root: the binary runs there. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** The built binary. */
export const CLI = join(ROOT, "packages/cli/dist/cli.js");

/** Builds the CLI and what it imports; up to date (so quick) after `pnpm test`'s typecheck. */
export function buildCli(): void {
  execFileSync(join(ROOT, "node_modules/.bin/tsc"), ["-b", "packages/cli"], {
    cwd: ROOT,
    stdio: "inherit",
  });
}

/** What one run of the binary printed, and its exit code (-1 when it was killed). */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** This process's environment without its REPORTKIT_* variables, then `env` on top. */
export function cliEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(clean)) {
    if (key.startsWith("REPORTKIT_")) delete clean[key];
  }
  return { ...clean, ...env };
}

/**
 * Runs `reportkit ...args` with `env` (see cliEnv) and `nodeArgs` before the script (a loader
 * hook, say); gives up after 30 s.
 */
export function reportkit(
  args: string[],
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgs, CLI, ...args],
      { cwd: ROOT, env: cliEnv(env), timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * Runs `reportkit ...args` in this process (`main` from src, no build), with `env` as its only
 * environment and a stop signal that never comes: its exit code and what it printed.
 */
export async function runReportkit(
  args: string[],
  env: Record<string, string> = {},
): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await main(["node", "reportkit", ...args], {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env,
    stopSignal: () => new Promise(() => {}),
  });
  return { code, stdout, stderr };
}

/** A receiver on a free loopback port that records every request it gets. */
export interface RecordingReceiver {
  /** Its URL, path /reports. */
  url: string;
  requests: { method: string; url: string; authorization: string | undefined; body: string }[];
  close(): Promise<void>;
}

/** Starts a receiver answering its n-th request (from 0) with `statusFor(n)` and `replyFor(n)`. */
export async function startReceiver(
  statusFor: (n: number) => number,
  replyFor: (n: number) => string = () => "",
): Promise<RecordingReceiver> {
  const requests: RecordingReceiver["requests"] = [];
  const server = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const n = requests.length;
    requests.push({
      method: req.method ?? "",
      url: req.url ?? "",
      authorization: req.headers.authorization,
      body,
    });
    res.writeHead(statusFor(n)).end(replyFor(n));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/reports`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
