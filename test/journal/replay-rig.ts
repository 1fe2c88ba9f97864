// What the `reportkit replay` tests share: a real journal database (Postgres or Redis) with a
// reader on it, real receivers over HTTP (reportkit's own, and targets that are not: an HTML
// page, redirects, an echo, silence), another origin counting what reaches it, and the CLI,
// in process (main) and as the binary (src/cli.ts run by node).
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { main } from "@reportkit/cli";
import type { ReadableJournal } from "@reportkit/core/adapter";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { SAMPLE_DLR } from "../fixtures/samples.js";

/** A journal database for the tests: its URL for --db, a reader, and the server's switch. */
export interface JournalServer {
  url: string;
  journal: ReadableJournal;
  /** Stops the database server (its data kept) and starts it again. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export const SECRET = "replay-secret-5c8e1f";
const CLI = fileURLToPath(new URL("../../packages/cli/src/cli.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface ReplayRig {
  db: JournalServer;
  /** Listens with `app` on a free loopback port; closed after the file's tests. */
  listen(app: http.RequestListener): Promise<string>;
  /** Keeps a failed DLR in the journal; returns its key and body. */
  keep(options?: { id?: string; url?: string; at?: Date }): Promise<{ key: string; body: string }>;
  /** The entry's status now, or undefined when there is none. */
  statusOf(key: string): Promise<string | undefined>;
  /** `reportkit replay --db <db> <args>`, the CLI's main in process. */
  replay(args: string[], env?: Record<string, string>): Promise<Run>;
  /** The same as the binary, given at most `boundMs` to exit (then killed, and the wait fails). */
  replayBinary(args: string[], boundMs: number): Promise<Run>;
}

/** Registers the file's hooks; each test starts with no failed or refused entry. */
export function useReplayRig(open: () => Promise<JournalServer>): ReplayRig {
  const servers: http.Server[] = [];
  const rig = {
    listen(app: http.RequestListener): Promise<string> {
      const server = http.createServer(app);
      servers.push(server);
      return new Promise((resolve) =>
        server.listen(0, "127.0.0.1", () =>
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
        ),
      );
    },
    async keep({ id = `${crypto.randomUUID()}:1`, url = "/webhooks", at = new Date() } = {}) {
      const body = JSON.stringify({ ...SAMPLE_DLR, id });
      const key = `delivery:${id}:DELIVRD`;
      await rig.db.journal.record({
        key,
        kind: "delivery",
        status: "failed",
        request: {
          method: "POST",
          url,
          contentType: "application/json",
          body,
          bodyEncoding: "utf8",
        },
        error: { code: "handler_failed", message: "the orders table is locked" },
        at,
      });
      return { key, body };
    },
    async statusOf(key: string) {
      // Each test starts with no failed entry, so they are few; resolved ones pile up.
      const failed = await readerBack(() => rig.db.journal.list({ status: "failed" }));
      if (failed.some((entry) => entry.key === key)) return "failed";
      const resolved = await rig.db.journal.list({ status: "resolved", limit: 5000 });
      return resolved.some((entry) => entry.key === key) ? "resolved" : undefined;
    },
    async replay(args: string[], env: Record<string, string> = {}): Promise<Run> {
      let stdout = "";
      let stderr = "";
      const code = await main(["node", "reportkit", "replay", "--db", rig.db.url, ...args], {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
        env,
        stopSignal: () => new Promise(() => {}),
      });
      return { code, stdout, stderr };
    },
    replayBinary(args: string[], boundMs: number): Promise<Run> {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "--conditions=source", CLI, "replay", "--db", rig.db.url, ...args],
        { cwd: ROOT, env: { PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          child.kill("SIGKILL");
          reject(
            new Error(
              `reportkit replay did not exit within ${boundMs} ms.\nstdout: ${stdout}\nstderr: ${stderr}`,
            ),
          );
        }, boundMs);
        child.once("exit", (code) => {
          clearTimeout(timer);
          resolve({ code, stdout, stderr });
        });
      });
    },
  } as ReplayRig;

  beforeAll(async () => {
    rig.db = await open();
  });
  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await rig.db?.close();
  });
  beforeEach(async () => {
    // What an earlier test left failed would be replayed again: resolved first.
    for (;;) {
      const left = await rig.db.journal.list({ status: ["failed", "refused"] });
      if (left.length === 0) break;
      await Promise.all(left.map((entry) => rig.db.journal.resolve(entry.key)));
    }
  });
  return rig;
}

/**
 * `read()` once the reader's connection is back: after the database was stopped and started
 * again, a fail-fast store (Redis) refuses calls until it has reconnected. At most 10 s.
 */
async function readerBack<T>(read: () => Promise<T>): Promise<T> {
  const until = Date.now() + 10_000;
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (Date.now() > until) {
        throw new Error("the journal's reader did not reconnect within 10 s of the restart", {
          cause: error,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
