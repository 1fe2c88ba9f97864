import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { createInterface, type Interface } from "node:readline";

/**
 * CPU pinning: with taskset and at least two CPUs, servers (and the micro-benchmarks) run on
 * CPU 0 and the load generator on CPU 1, so neither steals the other's core.
 */
export interface Pinning {
  readonly server: string[];
  readonly loader: string[];
  readonly description: string;
}

export function choosePinning(): Pinning {
  const cpus = availableParallelism();
  let taskset = false;
  try {
    execFileSync("taskset", ["--version"], { stdio: "ignore" });
    taskset = true;
  } catch {
    // No taskset (macOS, minimal images): the OS schedules freely.
  }
  if (!taskset || cpus < 2) {
    return {
      server: [],
      loader: [],
      description: taskset ? `not pinned (${cpus} CPU)` : "not pinned (no taskset)",
    };
  }
  // The orchestrator mostly waits, but keep it off the server's CPU too.
  try {
    execFileSync("taskset", ["-a", "-p", "-c", "1", String(process.pid)], { stdio: "ignore" });
  } catch {
    // Not fatal: it is idle during the runs.
  }
  return {
    server: ["taskset", "-c", "0"],
    loader: ["taskset", "-c", "1"],
    description: "taskset: servers and micro-benchmarks on CPU 0, load generator on CPU 1",
  };
}

/** A child process speaking JSON lines on stdin/stdout. */
export class LineProcess {
  readonly child: ChildProcess;
  readonly #lines: Interface;
  readonly #waiting: Array<(line: unknown) => void> = [];
  readonly #queued: unknown[] = [];
  /** The end of what it printed that is not a protocol line: its stderr, its own logs. */
  #printed = "";
  #exit: Promise<number | null>;

  constructor(
    readonly label: string,
    command: string[],
    env: Record<string, string>,
  ) {
    const [file, ...args] = command as [string, ...string[]];
    this.child = spawn(file, args, {
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stderr?.setEncoding("utf8");
    this.child.stderr?.on("data", (chunk: string) => this.#print(chunk));
    // "close", not "exit": the last lines are read only once stdout has closed.
    this.#exit = new Promise((resolve) => this.child.on("close", (code) => resolve(code)));
    this.#lines = createInterface({ input: this.child.stdout as NodeJS.ReadableStream });
    this.#lines.on("line", (line) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        this.#print(`${line}\n`); // Not a protocol line (a framework's own log): kept for errors.
        return;
      }
      const waiter = this.#waiting.shift();
      if (waiter) waiter(value);
      else this.#queued.push(value);
    });
  }

  /**
   * The next JSON line, or an error naming the process, what was awaited (`what`, e.g. "its
   * port") and what it printed, if it exits or takes longer than `timeoutMs`.
   */
  next<T>(timeoutMs: number, what = "its next line"): Promise<T> {
    if (this.#queued.length > 0) return Promise.resolve(this.#queued.shift() as T);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `${this.label} (pid ${this.child.pid}) did not answer with ${what} within ${timeoutMs / 1000} s.${this.#tail()}`,
            ),
          ),
        timeoutMs,
      );
      this.#exit.then((code) => {
        clearTimeout(timer);
        reject(new Error(`${this.label} exited with code ${code} before ${what}.${this.#tail()}`));
      });
      this.#waiting.push((value) => {
        clearTimeout(timer);
        resolve(value as T);
      });
    });
  }

  send(value: unknown): void {
    this.child.stdin?.write(`${JSON.stringify(value)}\n`);
  }

  /**
   * Closes stdin (the stop signal of the servers and the loader), waits for the exit, and
   * returns the last line printed before it, if any.
   */
  async stop<T>(timeoutMs = 10_000): Promise<T | undefined> {
    const timer = setTimeout(() => this.child.kill("SIGKILL"), timeoutMs);
    this.child.stdin?.end();
    await this.#exit;
    clearTimeout(timer);
    return this.#queued.pop() as T | undefined;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill("SIGKILL");
  }

  #print(text: string): void {
    this.#printed = (this.#printed + text).slice(-4000);
  }

  #tail(): string {
    const tail = this.#printed.trim();
    return tail === "" ? " It printed nothing." : `\n--- what it printed ---\n${tail}`;
  }
}

/**
 * How long one server may take from its spawn to its port line. Servers start at most
 * STARTING_AT_ONCE at a time, each with this bound of its own: dozens started at once on one
 * pinned CPU of a busy 2-core machine took longer than any bound meant for one.
 */
export const SERVER_READY_MS = 60_000;
export const STARTING_AT_ONCE = 4;

/** `start` for each item, at most `limit` at once; every outcome, in the items' order. */
export async function settledInTurn<T, R>(
  items: readonly T[],
  limit: number,
  start: (item: T) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        results[i] = { status: "fulfilled", value: await start(items[i] as T) };
      } catch (reason) {
        results[i] = { status: "rejected", reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
