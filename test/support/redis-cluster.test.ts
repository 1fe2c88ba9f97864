import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createConnection } from "node:net";
import { Cluster } from "ioredis";
import { describe, expect, it } from "vitest";
import { requireRedisCluster, startRedisCluster } from "./redis-cluster.js";

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("error", () => resolve(true));
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

describe.runIf(requireRedisCluster("redis-cluster.test.ts"))("the test Redis Cluster", () => {
  it("has three masters sharing the 16384 slots, takes keys on every one, and is gone after close()", async () => {
    const cluster = await startRedisCluster();
    let client: Cluster | undefined;
    try {
      expect(cluster.nodes).toHaveLength(3);
      for (const { port } of cluster.nodes) {
        const info = execFileSync("redis-cli", ["-p", String(port), "cluster", "info"], {
          encoding: "utf8",
        });
        expect(info).toContain("cluster_state:ok");
        expect(info).toContain("cluster_slots_assigned:16384");
        expect(info).toContain("cluster_size:3");
      }
      client = new Cluster([...cluster.nodes]);
      const keys = Array.from({ length: 30 }, (_, i) => `key-${i}`);
      for (const key of keys) await client.set(key, key);
      const counts = await Promise.all(client.nodes("master").map((node) => node.dbsize()));
      expect(counts).toHaveLength(3);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(30);
      // Spread over the masters: none holds every key.
      for (const count of counts) expect(count).toBeLessThan(30);
    } finally {
      client?.disconnect();
      await cluster.close();
    }
    expect(existsSync(cluster.dir)).toBe(false);
    for (const { port } of cluster.nodes) expect(await refused(port)).toBe(true);
  });
});
