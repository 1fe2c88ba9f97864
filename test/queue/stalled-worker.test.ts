// kill -9 of a worker process mid-job: its lock runs out and another worker process finishes
// the job (BullMQ's stalled-job recovery), so the report is still processed, once.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { bullmqQueue } from "@reportkit/bullmq";
import { defaultDedupeKey, parseReport } from "@reportkit/core";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR } from "../fixtures/samples.js";
import { type RedisServer, requireRedisServer, startRedisServer } from "../support/redis-server.js";

const WORKER = fileURLToPath(new URL("./worker-process.ts", import.meta.url));

function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=source", WORKER], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("ready")) resolve(child);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`worker exited (${code}):\n${output}`)));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

describe.runIf(requireRedisServer("stalled-worker.test.ts"))(
  "a worker process killed mid-job",
  () => {
    let redis: RedisServer;
    let log: Redis;
    const children: ChildProcess[] = [];

    beforeAll(async () => {
      redis = await startRedisServer();
      log = new Redis(redis.url);
    });

    afterAll(async () => {
      for (const child of children) {
        child.kill("SIGKILL");
        await exited(child);
      }
      log?.disconnect();
      await redis?.close();
    });

    it("is replaced by another worker process, which finishes the job once", async () => {
      const parsed = parseReport(SAMPLE_DLR);
      if (!parsed.ok || parsed.report.type !== "delivery") throw new Error("sample DLR");
      const report = parsed.report;
      const queue = bullmqQueue({ connection: redis.url, queueName: "stalled" });
      await queue.enqueue(report, defaultDedupeKey(report));
      await queue.close();

      // Short stall settings (lockDurationMs and stalledIntervalMs of 1 s, instead of 30 s each).
      const env = { REDIS_URL: redis.url, QUEUE: "stalled", LOCK_MS: "1000" };
      const first = await startWorker({ ...env, MODE: "hang" });
      children.push(first);
      await vi.waitFor(
        async () =>
          expect(await log.lrange("reportkit-test:calls", 0, -1)).toEqual([
            `started:${first.pid}:${report.id}`,
          ]),
        { timeout: 15_000 },
      );
      // A second replica, already running when the first dies: what production looks like.
      const second = await startWorker({ ...env, MODE: "work" });
      children.push(second);
      first.kill("SIGKILL");
      const killedAt = Date.now();
      await exited(first);

      await vi.waitFor(
        async () =>
          expect(await log.lrange("reportkit-test:calls", 0, -1)).toEqual([
            `started:${first.pid}:${report.id}`,
            `started:${second.pid}:${report.id}`,
            `done:${second.pid}:${report.id}`,
          ]),
        { timeout: 15_000, interval: 100 },
      );
      // Reported, never asserted (no timed assertion): about lockDurationMs to
      // lockDurationMs + stalledIntervalMs.
      console.log(`stalled-worker: the job was finished ${Date.now() - killedAt} ms after kill -9`);
      const jobKey = await log.keys("bull:stalled:rk-*");
      expect(jobKey).toHaveLength(1);
      expect(await log.hget(jobKey[0] ?? "", "finishedOn")).not.toBeNull();
      expect(await log.zcard("bull:stalled:completed")).toBe(1);
    });
  },
);
