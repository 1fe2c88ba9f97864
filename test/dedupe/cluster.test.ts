// redisDedupe on a real 3-master Redis Cluster (test/support/redis-cluster.ts): two receiver
// processes (Express and Fastify, receiver-process.ts) given the cluster's node URLs; 100
// reports, each sent to both at once, each handled exactly once; the reports' keys spread over
// every master. The failure journal, capped, on its one slot. health() on a cluster: ok, then
// naming the Redis Cluster once a master is gone.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createReceiver } from "@reportkit/core";
import { redisDedupe } from "@reportkit/redis";
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";
import {
  type RedisCluster,
  requireRedisCluster,
  startRedisCluster,
} from "../support/redis-cluster.js";

const LEASE_MS = 3000;
const HANDLED = '{"ok":true}';
const DUPLICATE = '{"ok":true,"duplicate":true}';

interface Instance {
  readonly origin: string;
  readonly child: ChildProcess;
}

describe.runIf(requireRedisCluster("test/dedupe/cluster.test.ts"))(
  "redisDedupe on a Redis Cluster",
  { timeout: 120_000 },
  () => {
    let cluster: RedisCluster;
    let effectsDir: string;
    const instances: Instance[] = [];

    function startInstance(framework: "express" | "fastify"): Promise<Instance> {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "--conditions=source", "receiver-process.ts", framework],
        {
          cwd: fileURLToPath(new URL(".", import.meta.url)),
          env: {
            ...process.env,
            TOKEN,
            REDIS_CLUSTER: cluster.urls.join(","),
            LEASE_MS: String(LEASE_MS),
            DEADLINE_MS: "2000",
            HANDLER_MS: "20",
            EFFECTS_FILE: join(effectsDir, `${framework}.log`),
          },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let output = "";
      return new Promise<Instance>((resolve, reject) => {
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          const match = /listening on (http:\/\/[^\s/]+)/.exec(output);
          if (match?.[1] !== undefined) {
            const instance = { origin: match[1], child };
            instances.push(instance);
            resolve(instance);
          }
        };
        child.stdout?.on("data", onData);
        child.stderr?.on("data", onData);
        child.once("exit", (code, signal) =>
          reject(new Error(`${framework} exited (${code ?? signal}) before listening:\n${output}`)),
        );
      });
    }

    async function send(instance: Instance, id: string): Promise<{ status: number; body: string }> {
      const res = await fetch(`${instance.origin}/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ ...SAMPLE_DLR, id }),
      });
      return { status: res.status, body: await res.text() };
    }

    function effects(): Map<string, number> {
      const counts = new Map<string, number>();
      for (const file of readdirSync(effectsDir)) {
        for (const line of readFileSync(join(effectsDir, file), "utf8").split("\n")) {
          if (line !== "") counts.set(line, (counts.get(line) ?? 0) + 1);
        }
      }
      return counts;
    }

    beforeAll(async () => {
      cluster = await startRedisCluster();
      effectsDir = mkdtempSync(join(tmpdir(), "reportkit-cluster-effects-"));
    });

    afterAll(async () => {
      for (const { child } of instances) {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }
      await cluster?.close();
      if (effectsDir !== undefined && existsSync(effectsDir)) {
        rmSync(effectsDir, { recursive: true, force: true });
      }
    });

    it("handles each of 100 reports, each sent to two receiver processes at once, exactly once", async () => {
      const pair = await Promise.all([startInstance("express"), startInstance("fastify")]);
      const ids = Array.from({ length: 100 }, (_, i) => `${randomUUID()}:${i}`);
      const attempts = await Promise.all(
        ids.map(async (id) => ({
          id,
          replies: await Promise.all(pair.map((instance) => send(instance, id))),
        })),
      );
      for (const { id, replies } of attempts) {
        for (const reply of replies) {
          // Handled, a duplicate, or 409 in_progress while the other process holds the claim.
          const retryLater = reply.status === 409 || reply.status === 503;
          expect(
            [HANDLED, DUPLICATE].includes(reply.body) || retryLater,
            `${id}: ${reply.body}`,
          ).toBe(true);
        }
        expect(replies.filter((r) => r.body === HANDLED).length).toBeLessThanOrEqual(1);
        // The provider's retry of whatever got no 2xx: acknowledged, never run again.
        for (const [index, reply] of replies.entries()) {
          if (reply.status < 300) continue;
          await vi.waitFor(
            async () =>
              expect([HANDLED, DUPLICATE]).toContain(
                (await send(pair[index] as Instance, id)).body,
              ),
            { timeout: LEASE_MS + 10_000, interval: 200 },
          );
        }
      }
      const counts = effects();
      for (const id of ids) expect(counts.get(id), id).toBe(1);
      expect(counts.size).toBe(100);

      // The 100 keys are spread over the three masters, not piled on one slot.
      const admin = new Cluster([...cluster.nodes]);
      try {
        await vi.waitFor(() => expect(admin.status).toBe("ready"), { timeout: 10_000 });
        const perMaster = await Promise.all(
          admin.nodes("master").map(async (node) => (await node.keys("reportkit:dedupe:*")).length),
        );
        expect(perMaster).toHaveLength(3);
        expect(perMaster.reduce((a, b) => a + b, 0)).toBe(100);
        for (const count of perMaster) expect(count).toBeGreaterThan(0);
      } finally {
        admin.disconnect();
      }
    });

    it("keeps the failure journal on one slot of the cluster, capped: the oldest entries go", async () => {
      const dedupe = redisDedupe({
        connection: { cluster: [...cluster.nodes] },
        journalPrefix: "capped:",
        journalMaxEntries: 5,
      });
      try {
        const start = Date.now() - 60_000;
        const ids = Array.from({ length: 8 }, () => randomUUID());
        for (const [n, id] of ids.entries()) {
          await dedupe.journal.record({
            key: `delivery:${id}:DELIVRD`,
            kind: "delivery",
            status: "failed",
            request: {
              method: "POST",
              url: "/webhooks",
              contentType: "application/json",
              body: "{}",
              bodyEncoding: "utf8",
            },
            error: { code: "handler_failed", message: "down" },
            at: new Date(start + n * 1000),
          });
        }
        expect((await dedupe.journal.list()).map((e) => e.key)).toEqual(
          ids.slice(3).map((id) => `delivery:${id}:DELIVRD`),
        );
      } finally {
        await dedupe.close();
      }
    });

    it("health(): ok on the cluster; not ok, naming the Redis Cluster, once a master is stopped", async () => {
      const dedupe = redisDedupe({ connection: { cluster: [...cluster.nodes] }, timeoutMs: 1000 });
      const receiver = createReceiver({ secret: TOKEN, dedupe, onDelivery() {} });
      try {
        await vi.waitFor(
          async () =>
            // The store's failure journal, in the same cluster, is a check of its own.
            expect(await receiver.health()).toEqual({
              ok: true,
              checks: { dedupe: { ok: true }, journal: { ok: true } },
            }),
          { timeout: 10_000 },
        );
        const stopped = cluster.nodes[2]?.port ?? 0;
        await cluster.stopNode(stopped);
        await vi.waitFor(
          async () => {
            const health = await receiver.health();
            expect(health.ok).toBe(false);
            expect(health.checks.dedupe?.message).toMatch(
              /^redis: redisDedupe: ping failed on Redis Cluster at redis:\/\/127\.0\.0\.1:\d+,127\.0\.0\.1:\d+,127\.0\.0\.1:\d+ \(/,
            );
            expect(health.checks.dedupe?.message).toContain(`node 127.0.0.1:${stopped}`);
          },
          { timeout: 10_000 },
        );
      } finally {
        await receiver.close();
      }
    });
  },
);
