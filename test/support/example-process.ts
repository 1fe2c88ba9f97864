import { type ChildProcess, execFile, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { SAMPLE_CALL_TEXT, SAMPLE_DLR_TEXT, TOKEN } from "../fixtures/samples.js";

/** curl with `args`, as a user runs it against an example: the reply's status and body. */
export function curl(...args: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    execFile("curl", ["-sS", "-w", "\n%{http_code}", ...args], (error, stdout) => {
      if (error !== null) return reject(error);
      const cut = stdout.lastIndexOf("\n");
      resolve({ body: stdout.slice(0, cut), status: Number(stdout.slice(cut + 1)) });
    });
  });
}

export interface RunningExample {
  /** Where the example said it listens, e.g. http://127.0.0.1:40123. */
  origin: string;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts an example as its users would (its start script's command, run with tsx) with
 * PORT=0, so the system picks a free port, and waits for its "listening on <url>" line.
 */
export async function startExample(
  exampleDir: URL,
  script: string,
  env: Record<string, string>,
): Promise<RunningExample> {
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=source", script], {
    cwd: fileURLToPath(exampleDir),
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const { origin, output } = await listening(child, "example");
  return { origin, output, stop: () => stop(child) };
}

/**
 * Waits for a child process's "listening on <url>" line (stdout or stderr) for up to 30 s:
 * the origin it named, and everything it printed (so far, and from then on). Rejects, with its
 * output, if it exits first or stays silent.
 */
export function listening(
  child: ChildProcess,
  name: string,
): Promise<{ origin: string; output: () => string }> {
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[^\s/]+)/.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve({ origin: match[1], output: () => output });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/**
 * The test every example gets: started as its users start it, it receives both documented
 * samples over HTTP with 200, logs them typed, refuses a request without the token, and
 * still serves its other route.
 */
export function testExample(exampleDir: URL, script: string): void {
  let example: RunningExample;

  beforeAll(async () => {
    example = await startExample(exampleDir, script, { REPORTKIT_SECRET: TOKEN });
  });

  afterAll(() => example?.stop());

  it("receives both documented sample reports over HTTP and logs them typed", async () => {
    for (const body of [SAMPLE_DLR_TEXT, SAMPLE_CALL_TEXT]) {
      const res = await fetch(`${example.origin}/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body,
      });
      expect(res.status).toBe(200);
    }
    await vi.waitFor(
      () => {
        expect(example.output()).toContain(
          "delivery b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1 to 919876543210: DELIVRD at 2021-04-09T10:57:51.000Z",
        );
        expect(example.output()).toContain(
          "call 5f2b1a9c-3d4e-4f60-8a7b-9c0d1e2f3a4b 918068281235 -> 919876543210: ANSWER, 23s",
        );
      },
      { timeout: 15_000 },
    );
  });

  it("refuses a report without the token, and serves its other route", async () => {
    const refused = await fetch(`${example.origin}/webhooks`, { method: "POST", body: "{}" });
    expect(refused.status).toBe(401);
    expect(await (await fetch(`${example.origin}/health`)).json()).toEqual({ ok: true });
  });
}
