// The queue example as its users run it: a redis-server, the receiver and the worker, each in
// its own process. The receiver answers 202; the worker logs the typed reports.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_CALL_TEXT, SAMPLE_DLR_TEXT, TOKEN } from "../../test/fixtures/samples.js";
import { type RunningExample, startExample } from "../../test/support/example-process.js";
import {
  type RedisServer,
  requireRedisServer,
  startRedisServer,
} from "../../test/support/redis-server.js";

const here = new URL(".", import.meta.url);

/** Starts worker.ts as `pnpm start:worker` does, and waits for its "worker ready" line. */
async function startWorker(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=source", "worker.ts"], {
    cwd: fileURLToPath(here),
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("worker ready")) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`worker exited (${code}):\n${output}`)));
  });
  return { child, output: () => output };
}

function stopped(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

describe.runIf(requireRedisServer("examples/queue/queue.test.ts"))("examples/queue", () => {
  let redis: RedisServer;
  let receiver: RunningExample;
  let worker: Awaited<ReturnType<typeof startWorker>>;

  beforeAll(async () => {
    redis = await startRedisServer();
    const env = { REDIS_URL: redis.url, REPORTKIT_SECRET: TOKEN };
    [receiver, worker] = await Promise.all([
      startExample(here, "receiver.ts", env),
      startWorker(env),
    ]);
  });

  afterAll(async () => {
    await receiver?.stop();
    if (worker !== undefined && worker.child.exitCode === null) {
      worker.child.kill("SIGTERM");
      await stopped(worker.child);
    }
    await redis?.close();
  });

  it("answers 202 queued for both sample reports, and the worker logs them typed", async () => {
    for (const body of [SAMPLE_DLR_TEXT, SAMPLE_CALL_TEXT]) {
      const res = await fetch(`${receiver.origin}/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body,
      });
      expect(res.status).toBe(202);
      expect(await res.json()).toEqual({ ok: true, queued: true });
    }
    await vi.waitFor(
      () => {
        expect(worker.output()).toMatch(
          /delivery b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1 to 919876543210: DELIVRD at 2021-04-09T10:57:51\.000Z \(job rk-/,
        );
        expect(worker.output()).toContain(
          "call 5f2b1a9c-3d4e-4f60-8a7b-9c0d1e2f3a4b 918068281235 -> 919876543210: ANSWER, 23s",
        );
      },
      { timeout: 10_000 },
    );
  });

  it("refuses a report without the token, and serves its other route", async () => {
    const refused = await fetch(`${receiver.origin}/webhooks`, { method: "POST", body: "{}" });
    expect(refused.status).toBe(401);
    expect(await (await fetch(`${receiver.origin}/health`)).json()).toEqual({ ok: true });
  });

  it("stops the worker cleanly on SIGTERM", async () => {
    worker.child.kill("SIGTERM");
    expect(await stopped(worker.child)).toBe(0);
  });
});
