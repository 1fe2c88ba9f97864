// The Postgres inbox's chaos rig (test/postgres/chaos.test.ts), run against queue mode on
// pg-boss: two receivers (Express, Fastify) answer 202 once a report's job is committed; three
// worker processes run the handlers, each in the inbox's transaction, holding it open a while;
// meanwhile a worker is killed (-9) every 1 to 2 s, mid-handler, and started again, and Postgres
// is restarted twice (every session ends). A provider of the test's own sends a new report
// every 60 ms until acknowledged (2xx). Every acknowledged report is then written exactly once
// (0 twice, 0 lost), and every job completed: a job whose worker died was taken over after its
// expiry, and its report's transaction had rolled back with the worker.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { pgBossQueue } from "@reportkit/pg-boss";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../support/postgres-server.js";
import { type QueueApp, startQueueApp } from "./servers.js";

/** Reports sent at least; more while the chaos is still going on. */
const REPORTS = 300;
const PACE_MS = 60;
const WORKERS = 3;
const KILLS = 6;
const RESTARTS_AT_KILLS = [2, 4];
/** The provider's wait between two attempts of one report (its real one is 30 minutes). */
const RETRY_MS = 150;
/** How long a report may go unacknowledged before the test gives up on it. */
const REPORT_BOUND_MS = 60_000;
const QUEUE = "chaos";

interface Worker {
  readonly child: ChildProcess;
  output: string;
  /** Set by the test before its kill -9: any other end is a crash. */
  killed: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(requirePostgresServer("pg-boss-chaos.test.ts"))(
  "queue mode on pg-boss while workers are killed and Postgres restarts",
  { timeout: 240_000 },
  () => {
    let server: PostgresServer;
    let admin: pg.Pool;
    const workers: Worker[] = [];
    const apps: QueueApp[] = [];
    const queues: { close(): Promise<void> }[] = [];

    async function startWorker(): Promise<Worker> {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "--conditions=source", "pg-boss-worker-process.ts"],
        {
          cwd: fileURLToPath(new URL(".", import.meta.url)),
          env: { ...process.env, DATABASE_URL: server.url, QUEUE, HOLD_MS: "1000" },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      const worker: Worker = { child, output: "", killed: false };
      workers.push(worker);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`worker did not start:\n${worker.output}`)),
          30_000,
        );
        const onData = (chunk: Buffer) => {
          worker.output += chunk.toString();
          if (worker.output.includes("ready")) {
            clearTimeout(timer);
            resolve();
          }
        };
        child.stdout?.on("data", onData);
        child.stderr?.on("data", onData);
        child.once("exit", () =>
          reject(new Error(`worker exited before ready:\n${worker.output}`)),
        );
      });
      return worker;
    }

    const alive = () =>
      workers.filter((w) => !w.killed && w.child.exitCode === null && w.child.signalCode === null);

    async function kill(worker: Worker): Promise<void> {
      worker.killed = true;
      if (worker.child.exitCode !== null || worker.child.signalCode !== null) return;
      const exited = new Promise((resolve) => worker.child.once("exit", resolve));
      worker.child.kill("SIGKILL");
      await exited;
    }

    /** Sends one report until it is acknowledged (2xx) or the bound passed: whether it was. */
    async function deliver(id: string): Promise<boolean> {
      const until = Date.now() + REPORT_BOUND_MS;
      while (Date.now() < until) {
        const app = apps[Math.floor(Math.random() * apps.length)] as QueueApp;
        try {
          const reply = await fetch(app.url, {
            method: "POST",
            headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
            body: JSON.stringify({ ...SAMPLE_DLR, id }),
            signal: AbortSignal.timeout(20_000),
          });
          await reply.text();
          if (reply.status >= 200 && reply.status < 300) return true;
        } catch {
          // no answer: the provider retries
        }
        await sleep(RETRY_MS);
      }
      return false;
    }

    beforeAll(async () => {
      server = await startPostgresServer();
      admin = new pg.Pool({ connectionString: server.url });
      admin.on("error", () => {});
      await admin.query(
        "CREATE TABLE deliveries (report_id text NOT NULL, status text NOT NULL, framework text NOT NULL)",
      );
      for (const adapter of ["express", "fastify"] as const) {
        const queue = pgBossQueue({
          connectionString: server.url,
          queueName: QUEUE,
          onError: () => {},
        });
        queues.push(queue);
        apps.push(await startQueueApp(adapter, queue));
      }
      await Promise.all(Array.from({ length: WORKERS }, startWorker));
    });

    afterAll(async () => {
      await Promise.all(workers.map(kill));
      for (const app of apps) await app.close();
      for (const queue of queues) await queue.close();
      await admin?.end();
      await server?.close();
    });

    it(`writes each acknowledged report once, none twice, through ${KILLS} kills of workers and ${RESTARTS_AT_KILLS.length} restarts`, async () => {
      const ids: string[] = [];
      let kills = 0;
      let restarts = 0;
      let chaosOver = false;
      const provider = (async () => {
        const deliveries: Promise<boolean>[] = [];
        while (ids.length < REPORTS || !chaosOver) {
          const id = `${randomUUID()}:${ids.length}`;
          ids.push(id);
          deliveries.push(deliver(id));
          await sleep(PACE_MS);
        }
        const acknowledged = await Promise.all(deliveries);
        return ids.filter((_, i) => !acknowledged[i]);
      })();

      const chaos = (async () => {
        const replacements: Promise<Worker>[] = [];
        try {
          while (kills < KILLS) {
            await sleep(1000 + Math.random() * 1000);
            const victims = alive();
            const victim = victims[Math.floor(Math.random() * victims.length)];
            if (victim === undefined) continue;
            await kill(victim);
            kills++;
            replacements.push(startWorker());
            if (RESTARTS_AT_KILLS.includes(kills)) {
              await server.stop();
              await sleep(300);
              await server.start();
              restarts++;
            }
          }
          await Promise.all(replacements);
        } finally {
          chaosOver = true;
        }
      })();

      const [unacknowledged] = await Promise.all([provider, chaos]);
      expect(ids.length).toBeGreaterThanOrEqual(REPORTS);
      expect(unacknowledged, "reports never acknowledged").toEqual([]);
      expect([kills, restarts], "the chaos that happened").toEqual([
        KILLS,
        RESTARTS_AT_KILLS.length,
      ]);

      // The workers go on: a killed worker's jobs come back once their expiry passed.
      const written = async () => {
        const { rows } = await admin.query(
          "SELECT report_id, count(*)::int AS n FROM deliveries WHERE report_id = ANY($1) GROUP BY report_id",
          [ids],
        );
        return new Map(rows.map((r: { report_id: string; n: number }) => [r.report_id, r.n]));
      };
      await vi.waitFor(async () => expect((await written()).size).toBe(ids.length), {
        timeout: 60_000,
        interval: 500,
      });
      const counts = await written();
      const twice = ids.filter((id) => (counts.get(id) ?? 0) > 1);
      const lost = ids.filter((id) => !counts.has(id));
      expect({ twice, lost }).toEqual({ twice: [], lost: [] });
      await vi.waitFor(
        async () => {
          const { rows } = await admin.query(
            "SELECT state::text, count(*)::int AS n FROM pgboss.job WHERE name = $1 GROUP BY 1",
            [QUEUE],
          );
          expect(rows).toEqual([{ state: "completed", n: ids.length }]);
        },
        { timeout: 30_000, interval: 500 },
      );

      // Kills landed mid-handler: jobs that pg-boss put back once their worker was gone.
      const { rows: takenOver } = await admin.query(
        "SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND retry_count > 0",
        [QUEUE],
      );
      expect(takenOver[0].n).toBeGreaterThan(0);

      // No worker ended but by the test's kill -9.
      const crashed = workers
        .filter((w) => !w.killed && (w.child.exitCode !== null || w.child.signalCode !== null))
        .map((w) => `(${w.child.exitCode ?? w.child.signalCode}):\n${w.output}`);
      expect(crashed).toEqual([]);
      expect(alive()).toHaveLength(WORKERS);
    });
  },
);
