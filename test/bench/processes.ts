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
  #stderr = "";
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
    this.child.stderr?.on("data", (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-4000);
    });
    // "close", not "exit": the last lines are read only once stdout has closed.
    this.#exit = new Promise((resolve) => this.child.on("close", (code) => resolve(code)));
    this.#lines = createInterface({ input: this.child.stdout as NodeJS.ReadableStream });
    this.#lines.on("line", (line) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        return; // Not a protocol line (a framework's own log): ignored.
      }
      const waiter = this.#waiting.shift();
      if (waiter) waiter(value);
      else this.#queued.push(value);
    });
  }

  /** The next JSON line, or an error naming the process if it exits or takes too long. */
  next<T>(timeoutMs: number): Promise<T> {
    if (this.#queued.length > 0) return Promise.resolve(this.#queued.shift() as T);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.label}: no answer within ${timeoutMs} ms.${this.#tail()}`)),
        timeoutMs,
      );
      this.#exit.then((code) => {
        clearTimeout(timer);
        reject(new Error(`${this.label} exited with code ${code}.${this.#tail()}`));
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

  #tail(): string {
    const tail = this.#stderr.trim();
    return tail === "" ? "" : `\n--- its stderr ---\n${tail}`;
  }
}
