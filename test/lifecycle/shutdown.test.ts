// Graceful shutdown through real HTTP, in a process of its own per framework: 20 handlers in
// flight (1 s each) when SIGTERM arrives all finish and are answered 200, a report sent once
// close() began gets 503 shutting_down (Express, Hono; Fastify's own 503 there), and
// the process then ends by itself: nothing (socket, timer, store) is left open.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";

let child: ChildProcess | undefined;
afterEach(() => {
  if (child?.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

function startApp(framework: string) {
  const started = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=source", "shutdown-process.ts", framework],
    {
      cwd: fileURLToPath(new URL(".", import.meta.url)),
      env: { ...process.env, TOKEN, HANDLER_MS: "1000" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child = started;
  let output = "";
  started.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  started.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => started.once("exit", resolve));
  return { child: started, output: () => output, exited };
}

function send(origin: string, id: string) {
  return fetch(`${origin}/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ ...SAMPLE_DLR, id }),
  });
}

const count = (text: string, word: string) =>
  text.split("\n").filter((line) => line.startsWith(`${word} `)).length;

describe.each(["express", "hono", "fastify"])("graceful shutdown: %s", (framework) => {
  it("SIGTERM with 20 handlers in flight: all 20 answered 200, a later report 503, then the process exits by itself", async () => {
    const app = startApp(framework);
    await vi.waitFor(() => expect(app.output()).toMatch(/listening on http:\/\/[\d.:]+/), {
      timeout: 30_000,
    });
    const origin = /listening on (http:\/\/[\d.:]+)/.exec(app.output())?.[1] as string;

    const inFlight = Array.from({ length: 20 }, (_, i) => send(origin, `in-flight:${i}`));
    await vi.waitFor(() => expect(count(app.output(), "handling")).toBe(20), {
      timeout: 15_000,
    });
    app.child.kill("SIGTERM");
    await vi.waitFor(() => expect(app.output()).toContain("closing"), { timeout: 10_000 });

    if (framework === "fastify") {
      // Fastify answers requests that arrive while it closes with its own 503.
      const late = await send(origin, "late:1");
      expect(late.status).toBe(503);
      expect(late.headers.get("connection")).toBe("close");
    } else {
      const late = await send(origin, "late:1");
      expect(late.status).toBe(503);
      expect(late.headers.get("retry-after")).toBe("30");
      expect(((await late.json()) as { error: { code: string } }).error.code).toBe("shutting_down");
    }

    const replies = await Promise.all(inFlight);
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(count(app.output(), "handled")).toBe(20);
    expect(app.output()).not.toContain("handling late:1");

    // Ends by itself (the script never calls process.exit), with code 0.
    const code = await Promise.race([
      app.exited,
      new Promise<string>((resolve) => setTimeout(() => resolve("still running"), 15_000)),
    ]);
    expect(code, app.output()).toBe(0);
    expect(app.output()).toContain("closed");
  });
});
