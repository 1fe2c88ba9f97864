// A real redis-server for tests: started on a free port with a temporary directory, stopped
// (and the directory removed) after. No mocks: tests that need Redis talk to this process.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Whether redis-server can be started here (CI installs it; a dev machine may lack it). */
export const hasRedisServer: boolean = (() => {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/**
 * The one line a Redis test file prints when redis-server is missing, instead of running.
 * In CI a missing redis-server is an error: every test must run there.
 */
export function requireRedisServer(file: string): boolean {
  if (hasRedisServer) return true;
  if (process.env.CI) throw new Error(`${file}: redis-server is not installed (CI installs it).`);
  console.log(`${file}: redis-server not found (apt-get install redis-server); not run here.`);
  return false;
}

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  /** Stops the server (SIGTERM, waits for exit); the data directory stays for `start`. */
  stop(): Promise<void>;
  /** Starts it again on the same port and directory (say, after `stop`, to test recovery). */
  start(): Promise<void>;
  /** Stops it for good and removes its directory. */
  close(): Promise<void>;
}

export interface RedisServerOptions {
  /** `appendonly yes` with `appendfsync always`: every acknowledged write survives a restart. */
  appendOnly?: boolean;
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "reportkit-redis-"));
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--save",
    "",
    "--daemonize",
    "no",
    "--loglevel",
    "warning",
    ...(options.appendOnly ? ["--appendonly", "yes", "--appendfsync", "always"] : []),
  ];
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    if (child !== undefined) return;
    const started = spawn("redis-server", args, { stdio: ["ignore", "ignore", "pipe"] });
    child = started;
    started.once("exit", () => {
      if (child === started) child = undefined;
    });
    await waitForPing(port, started);
  }

  async function stop(): Promise<void> {
    const running = child;
    if (running === undefined) return;
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    running.kill("SIGTERM");
    await exited;
    child = undefined;
  }

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A TCP port nothing listens on right now, on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once the server answers PING (plain RESP over TCP: no client library needed). */
export async function waitForPing(port: number, child: ChildProcess): Promise<void> {
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`redis-server exited (code ${child.exitCode}): ${stderr.trim()}`);
    }
    if (await ping(port)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  child.kill("SIGKILL");
  throw new Error(`redis-server on port ${port} did not answer PING within 10 s: ${stderr.trim()}`);
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    let reply = "";
    socket.setTimeout(500, () => socket.destroy());
    socket.once("error", () => resolve(false));
    socket.once("close", () => resolve(reply.startsWith("+PONG")));
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      if (reply.includes("\r\n")) socket.end();
    });
    socket.once("connect", () => socket.write("PING\r\n"));
  });
}
