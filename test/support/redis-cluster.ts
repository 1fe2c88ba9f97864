// A real Redis Cluster for tests: three redis-server masters with `--cluster-enabled yes` on
// free ports in one temporary directory, joined by `redis-cli --cluster create` (no replicas),
// ready once every node says `cluster_state:ok`; stopped (and the directory removed) after.
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, hasRedisServer, waitForPing } from "./redis-server.js";

/** Whether redis-server and redis-cli (Debian: redis-tools, a dependency of redis-server) are here. */
export const hasRedisCluster: boolean =
  hasRedisServer &&
  (() => {
    try {
      execFileSync("redis-cli", ["--version"], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  })();

/** As `requireRedisServer`: one line when missing here, an error in CI. */
export function requireRedisCluster(file: string): boolean {
  if (hasRedisCluster) return true;
  if (process.env.CI) throw new Error(`${file}: redis-server or redis-cli is not installed.`);
  console.log(`${file}: redis-server/redis-cli not found (apt-get install redis-server); not run.`);
  return false;
}

export interface RedisClusterNode {
  readonly host: string;
  readonly port: number;
}

export interface RedisCluster {
  /** The masters, as ioredis takes its startup nodes. */
  readonly nodes: readonly RedisClusterNode[];
  /** The same as `redis://127.0.0.1:<port>` URLs. */
  readonly urls: readonly string[];
  readonly dir: string;
  /** Stops one node (SIGTERM, waits for its exit): the cluster then lacks its slots. */
  stopNode(port: number): Promise<void>;
  /** Stops every node and removes the directory. */
  close(): Promise<void>;
}

const HOST = "127.0.0.1";

export async function startRedisCluster(size = 3): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), "reportkit-redis-cluster-"));
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  try {
    // Ports one after another: two free-port probes at once could get the same one.
    for (let i = 0; i < size; i++) {
      const port = await freePort();
      // The bus port is chosen too: port + 10000 (the default) may be taken or above 65535.
      const busPort = await freePort();
      ports.push(port);
      const child = spawn(
        "redis-server",
        [
          "--port",
          String(port),
          "--cluster-enabled",
          "yes",
          "--cluster-port",
          String(busPort),
          "--cluster-config-file",
          join(dir, `nodes-${port}.conf`),
          "--cluster-node-timeout",
          "5000",
          "--dir",
          dir,
          "--bind",
          HOST,
          "--save",
          "",
          "--appendonly",
          "no",
          "--daemonize",
          "no",
          "--loglevel",
          "warning",
        ],
        { stdio: ["ignore", "ignore", "pipe"] },
      );
      children.push(child);
      await waitForPing(port, child);
    }
    await redisCli([
      "--cluster",
      "create",
      ...ports.map((port) => `${HOST}:${port}`),
      "--cluster-replicas",
      "0",
      "--cluster-yes",
    ]);
    await waitForClusterOk(ports);
  } catch (error) {
    await stopAll(children);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    nodes: ports.map((port) => ({ host: HOST, port })),
    urls: ports.map((port) => `redis://${HOST}:${port}`),
    dir,
    async stopNode(port) {
      const child = children[ports.indexOf(port)];
      if (child === undefined) throw new Error(`no node of this cluster on port ${port}`);
      await stopAll([child]);
    },
    async close() {
      await stopAll(children);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function redisCli(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("redis-cli", args, { timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`redis-cli ${args.join(" ")} failed: ${stderr || stdout}`));
      else resolve(stdout);
    });
  });
}

/** Until every node reports `cluster_state:ok` and knows all the others (gossip done). */
async function waitForClusterOk(ports: readonly number[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last = "";
  while (Date.now() < deadline) {
    const infos = await Promise.all(
      ports.map((port) => redisCli(["-h", HOST, "-p", String(port), "cluster", "info"])),
    );
    const ready = infos.every(
      (info) =>
        info.includes("cluster_state:ok") && info.includes(`cluster_known_nodes:${ports.length}`),
    );
    if (ready) return;
    last = infos.join("\n");
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the Redis Cluster did not reach cluster_state:ok within 30 s:\n${last}`);
}

async function stopAll(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map((child) => {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      return exited;
    }),
  );
}
