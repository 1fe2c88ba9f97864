// The benchmark's process helpers: a server that does not answer is named, with what was
// awaited and what it printed (its logs on stdout too), and servers start a few at a time.
import { afterEach, describe, expect, it } from "vitest";
import { LineProcess, settledInTurn } from "./processes.js";

const started: LineProcess[] = [];
afterEach(() => {
  for (const proc of started.splice(0)) proc.kill();
});

function node(label: string, script: string): LineProcess {
  const proc = new LineProcess(label, [process.execPath, "-e", script], {});
  started.push(proc);
  return proc;
}

describe("LineProcess", () => {
  it("a server silent past its bound: its name, what was awaited, and its logs", async () => {
    const proc = node(
      "Fastify 5 reportkit server",
      'console.log("loading plugins"); console.log("{}"); setInterval(() => {}, 1000);',
    );
    // Its first protocol line: the log line before it has been read by then.
    await proc.next(30_000, "its first line");
    await expect(proc.next(1_000, "its port")).rejects.toThrow(
      /^Fastify 5 reportkit server \(pid \d+\) did not answer with its port within 1 s\.\n--- what it printed ---\nloading plugins$/,
    );
  });

  it("a server that exits first: its name, its exit code, and what it printed", async () => {
    const proc = node(
      "Express 5 bare server",
      "console.error('Cannot find module x'); process.exit(3);",
    );
    await expect(proc.next(30_000, "its port")).rejects.toThrow(
      "Express 5 bare server exited with code 3 before its port.\n--- what it printed ---\nCannot find module x",
    );
  });

  it("its protocol lines are answers, not output", async () => {
    const proc = node(
      "server",
      'console.log("a log"); console.log(JSON.stringify({ port: 1234 }));',
    );
    expect(await proc.next<{ port: number }>(30_000, "its port")).toEqual({ port: 1234 });
  });
});

describe("settledInTurn", () => {
  it("runs at most `limit` at once, and keeps every outcome in order", async () => {
    let running = 0;
    let most = 0;
    const results = await settledInTurn([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 10));
      running--;
      if (n === 5) throw new Error("five did not start");
      return n * 10;
    });
    expect(most).toBe(3);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : String(r.reason)))).toEqual([
      10,
      20,
      30,
      40,
      "Error: five did not start",
      60,
      70,
    ]);
  });
});
