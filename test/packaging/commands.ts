// Commands and processes for the packaging tests, each with a bound that names what it waited for.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * The environment for the commands: this one without the npm_* variables a `pnpm test` run
 * sets (its registry, its lifecycle), so npm runs as in a user's shell.
 */
export function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^npm_/i.test(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

export interface Ran {
  code: number | null;
  output: string;
}

/** Runs a command to its end (or kills it after `timeoutMs`); its exit code and output. */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; timeoutMs: number; env?: Record<string, string> },
): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: userEnv(options.env),
        maxBuffer: 64 << 20,
        timeout: options.timeoutMs,
        killSignal: "SIGKILL",
      },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`;
        if (error !== null && (error.killed || error.signal !== null)) {
          fail(
            new Error(
              `${command} ${args.join(" ")} (in ${options.cwd}) did not finish within ${options.timeoutMs / 1000} s; it printed:\n${output.slice(-4000)}`,
            ),
          );
          return;
        }
        done({ code: error === null ? 0 : ((error.code as number | undefined) ?? 1), output });
      },
    );
    child.stdin?.end();
  });
}

/** Like `run`, failing with the output unless the command exits 0. */
export async function succeed(
  command: string,
  args: string[],
  options: { cwd: string; timeoutMs: number; env?: Record<string, string> },
): Promise<string> {
  const ran = await run(command, args, options);
  if (ran.code !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} (in ${options.cwd}) exited ${ran.code}:\n${ran.output.slice(-4000)}`,
    );
  }
  return ran.output;
}

/** A long-running child: what it printed so far, and how to stop it. */
export interface Running {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export function startProcess(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Running {
  const child = spawn(command, args, {
    cwd,
    env: userEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk));
  return {
    child,
    output: () => output,
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once("exit", () => done());
        child.kill("SIGTERM");
      }),
  };
}

/** Resolves once `url` answers at all (any status), within `timeoutMs`; else says what it printed. */
export async function answering(url: string, server: Running, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.child.exitCode !== null) {
      throw new Error(
        `the server exited (${server.child.exitCode}) before answering ${url}:\n${server.output()}`,
      );
    }
    try {
      await (await fetch(url, { method: "POST", signal: AbortSignal.timeout(5_000) })).text();
      return;
    } catch {
      if (Date.now() > deadline) {
        throw new Error(
          `${url} did not answer within ${timeoutMs / 1000} s; the server printed:\n${server.output()}`,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** Resolves with the exit code and output once the process ends, within `timeoutMs`. */
export function ended(server: Running, timeoutMs: number): Promise<Ran> {
  return new Promise((done, fail) => {
    const timer = setTimeout(
      () =>
        fail(
          new Error(`the process did not exit within ${timeoutMs / 1000} s:\n${server.output()}`),
        ),
      timeoutMs,
    );
    const finish = () => {
      clearTimeout(timer);
      done({ code: server.child.exitCode, output: server.output() });
    };
    if (server.child.exitCode !== null) finish();
    else server.child.once("close", finish);
  });
}

/**
 * Every @reportkit package an npm project installed, with the file its lockfile says it came
 * from (absolute), or its `resolved` as written when that is not a file.
 */
export function reportkitSources(project: string): Map<string, string> {
  const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8")) as {
    packages: Record<string, { resolved?: string }>;
  };
  const sources = new Map<string, string>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    const name = /(?:^|\/)node_modules\/(@reportkit\/[^/]+)$/.exec(path)?.[1];
    if (name === undefined) continue;
    const resolved = entry.resolved ?? "(no resolved)";
    sources.set(
      name,
      resolved.startsWith("file:") ? resolve(project, resolved.slice(5)) : resolved,
    );
  }
  return sources;
}
