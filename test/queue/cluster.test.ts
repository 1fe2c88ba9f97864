// Queue mode on a real 3-master Redis Cluster (test/support/redis-cluster.ts): receivers
// (Express and Fastify) with bullmqQueue and two workers given the cluster's nodes; every report,
// sent twice to each receiver at once, is queued once and handled once, and every key of the
// queue is on the one slot of its hash-tagged prefix. health() reaches the cluster.
import { execFile, execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { bullmqQueue, createWorker, queueAdmin, queueStats } from "@reportkit/bullmq";
import { createReceiver, parseReport } from "@reportkit/core";
import { Cluster } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";
import {
  type RedisCluster,
  requireRedisCluster,
  startRedisCluster,
} from "../support/redis-cluster.js";
import { push, startQueueApp } from "./servers.js";

const quiet = () => {};
const parsed = parseReport(SAMPLE_DLR);
if (!parsed.ok) throw new Error(parsed.error.message);
const DLR_REPORT = parsed.report;
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The real `reportkit` binary (packages/cli/dist/cli.js). */
function reportkit(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [fileURLToPath(new URL("../../packages/cli/dist/cli.js", import.meta.url)), ...args],
      { cwd: ROOT, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe.runIf(requireRedisCluster("test/queue/cluster.test.ts"))(
  "queue mode on a Redis Cluster",
  { timeout: 60_000 },
  () => {
    let cluster: RedisCluster;
    const open: { close(): Promise<unknown> }[] = [];
    const closeLater = <T extends { close(): Promise<unknown> }>(thing: T): T => {
      open.push(thing);
      return thing;
    };

    beforeAll(async () => {
      cluster = await startRedisCluster();
    });
    afterEach(async () => {
      for (const thing of open.splice(0).reverse()) await thing.close();
    });
    afterAll(async () => {
      await cluster?.close();
    });

    it("queues each of 50 reports, sent twice to each of two receivers at once, once; two workers handle each once", async () => {
      const connection = { cluster: cluster.urls };
      const queue = closeLater(bullmqQueue({ connection, onError: quiet }));
      const apps = [
        closeLater(await startQueueApp("express", queue)),
        closeLater(await startQueueApp("fastify", queue)),
      ];
      const ids = Array.from({ length: 50 }, (_, i) => `cluster-${i}-${Date.now()}`);
      const replies = await Promise.all(
        ids.flatMap((id) => [...apps, ...apps].map((app) => push(app.url, { ...SAMPLE_DLR, id }))),
      );
      for (const reply of replies) {
        expect(reply).toEqual({ status: 202, body: { ok: true, queued: true } });
      }

      const handled = new Map<string, number>();
      for (let i = 0; i < 2; i++) {
        closeLater(
          createWorker({
            connection: { cluster: [...cluster.nodes] },
            concurrency: 4,
            onDelivery: (report) => void handled.set(report.id, (handled.get(report.id) ?? 0) + 1),
          }),
        );
      }
      await vi.waitFor(() => expect(handled.size).toBe(50), { timeout: 20_000, interval: 100 });
      for (const id of ids) expect(handled.get(id), id).toBe(1);
      const admin = closeLater(queueAdmin({ connection }));
      expect(await admin.failed()).toEqual([]);
      // Found by its hash-tagged meta key on whichever master holds it.
      expect(await queueStats({ connection })).toEqual([
        {
          queueName: "reportkit",
          prefix: "{reportkit}",
          waiting: 0,
          active: 0,
          delayed: 0,
          failed: 0,
          completed: 50,
        },
      ]);

      // Every key of the queue under the "{reportkit}" hash tag: one slot, so one master.
      const client = new Cluster([...cluster.nodes]);
      try {
        await vi.waitFor(() => expect(client.status).toBe("ready"), { timeout: 10_000 });
        const slot = await client.cluster("KEYSLOT", "{reportkit}");
        const perMaster = await Promise.all(
          client.nodes("master").map((node) => node.keys("*reportkit*")),
        );
        const holding = perMaster.filter((keys) => keys.length > 0);
        expect(holding).toHaveLength(1);
        for (const key of holding[0] ?? []) {
          expect(key.startsWith("{reportkit}:reportkit:")).toBe(true);
          expect(await client.cluster("KEYSLOT", key)).toBe(slot);
        }
        // 50 completed jobs (kept 2 h), each its own hash.
        expect(await client.zcard("{reportkit}:reportkit:completed")).toBe(50);
      } finally {
        client.disconnect();
      }
    });

    it("reportkit queue stats and failed take the cluster as comma-separated URLs", async () => {
      execFileSync(`${ROOT}node_modules/.bin/tsc`, ["-b", "packages/cli"], { cwd: ROOT });
      // A second queue, with a report waiting (no worker on it).
      const second = closeLater(
        bullmqQueue({ connection: { cluster: cluster.urls }, queueName: "second" }),
      );
      await second.enqueue(DLR_REPORT, "delivery:second:1");
      const redis = cluster.urls.join(",");
      const stats = await reportkit(["queue", "stats", "--redis", redis]);
      expect(stats).toMatchObject({ code: 0, stderr: "" });
      // Both queues, each under its own hash tag (so the PREFIX column), found on their masters.
      expect(stats.stdout.split("\n").map((line) => line.split(/\s+/).join(" "))).toEqual([
        "PREFIX QUEUE WAITING ACTIVE DELAYED FAILED COMPLETED",
        "{reportkit} reportkit 0 0 0 0 50",
        "{second} second 1 0 0 0 0",
        "",
      ]);
      const failed = await reportkit(["queue", "failed", "--redis", redis]);
      expect(failed).toMatchObject({ code: 0, stdout: "no failed jobs\n", stderr: "" });
    });

    it("health(): the queue's check is a round trip to the cluster", async () => {
      const queue = closeLater(
        bullmqQueue({ connection: { cluster: cluster.urls }, queueName: "health", onError: quiet }),
      );
      const receiver = createReceiver({ secret: TOKEN, queue });
      expect(await receiver.health()).toEqual({ ok: true, checks: { queue: { ok: true } } });
    });

    it("refuses a prefix without a hash tag on a cluster, saying which to use", () => {
      expect(() =>
        bullmqQueue({ connection: { cluster: cluster.urls }, queueName: "q", prefix: "bull" }),
      ).toThrow(
        /on a Redis Cluster every key of a queue must be on one slot, so `prefix` needs a hash tag, e\.g\. "\{q\}" \(got "bull"\)/,
      );
      expect(() =>
        createWorker({
          connection: { cluster: cluster.urls },
          prefix: "{}",
          onDelivery: () => {},
        }),
      ).toThrow(/`prefix` needs a hash tag/);
    });
  },
);
