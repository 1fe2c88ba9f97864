// A Next.js app built with `next build` and served by `next start` on a free port, as its users
// run it: the workspace packages are built first (Next reads their dist/, as published), no
// telemetry, and nothing downloaded (the SWC binary is the @next/swc-* npm package).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

const root = join(import.meta.dirname, "../..");

export interface RunningNextApp {
  origin: string;
  /** How long `next build` took, in seconds (reported, never asserted). */
  buildSeconds: number;
  output(): string;
  stop(): Promise<void>;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(" ")} failed:\n${stdout}${stderr}`));
      else resolve();
    });
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Builds the app in `dir` and starts it with `env` added to the environment; resolves once it
 * answers HTTP. The build runs without the secret (REPORTKIT_SECRET, or its old name REPORTKIT_TOKEN), as a
 * CI build without secrets does.
 */
export async function buildAndStartNext(
  dir: string,
  env: Record<string, string>,
): Promise<RunningNextApp> {
  const { REPORTKIT_SECRET: _secret, REPORTKIT_TOKEN: _oldName, ...withoutSecret } = process.env;
  const buildEnv = { ...withoutSecret, NEXT_TELEMETRY_DISABLED: "1" };
  const base = { ...buildEnv, ...env };
  await run(join(root, "node_modules/.bin/tsc"), ["-b"], root, buildEnv);
  const started = performance.now();
  // The app's own next when it has one (examples/next), else the one test/ depends on.
  const next = [
    join(dir, "node_modules/.bin/next"),
    join(root, "test/node_modules/.bin/next"),
  ].find((bin) => existsSync(bin)) as string;
  await run(next, ["build"], dir, buildEnv);
  const buildSeconds = Math.round((performance.now() - started) / 100) / 10;
  const port = await freePort();
  const child: ChildProcess = spawn(next, ["start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: dir,
    env: base,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited:\n${output}`);
    try {
      await fetch(`${origin}/`);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`next start: no answer after 60 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return { origin, buildSeconds, output: () => output, stop: () => stop(child) };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
