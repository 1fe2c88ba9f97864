// The inbox under chaos, bounded to run in the default suite: three receiver processes (Express,
// Fastify, Hono) share one real PostgreSQL server; a provider of the test's own sends a new
// report every 60 ms (300 at least, more until the chaos is over), each to a live process, again
// and again until it is acknowledged (2xx); meanwhile a process is killed (-9) every 1 to 2 s and started again, and Postgres is
// restarted twice (fast shutdown: every session gets FATAL 57P01). Every report is acknowledged,
// each was written exactly once (0 twice, 0 acknowledged and lost), and no process ended but by
// the test's own kill -9: a server ending its sessions never ends a receiver.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";
import { listening } from "../support/example-process.js";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../support/postgres-server.js";

const FRAMEWORKS = ["express", "fastify", "hono"] as const;
type Framework = (typeof FRAMEWORKS)[number];
/** Reports sent at least; more while the chaos is still going on. */
const REPORTS = 300;
/** One new report every this many ms: about 18 s of sending, longer if the chaos takes longer. */
const PACE_MS = 60;
const KILLS = 6;
const RESTARTS_AT_KILLS = [2, 4];
/** The provider's wait between two attempts of one report (its real one is 30 minutes). */
const RETRY_MS = 150;
/** How long a report may go unacknowledged before the test gives up on it. */
const REPORT_BOUND_MS = 90_000;

interface Instance {
  readonly framework: Framework;
  readonly origin: string;
  readonly child: ChildProcess;
  readonly output: () => string;
  /** Set by the test before its kill -9: any other end is a crash. */
  killed: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(requirePostgresServer("chaos.test.ts"))(
  "the inbox while receivers are killed and Postgres restarts",
  { timeout: 180_000 },
  () => {
    let server: PostgresServer;
    let admin: pg.Pool;
    const instances: Instance[] = [];

    async function start(framework: Framework): Promise<Instance> {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "--conditions=source", "receiver-process.ts", framework],
        {
          cwd: fileURLToPath(new URL(".", import.meta.url)),
          env: { ...process.env, TOKEN, DATABASE_URL: server.url, HOLD_MS: "40" },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      const { origin, output } = await listening(child, framework);
      const instance: Instance = { framework, origin, child, output, killed: false };
      instances.push(instance);
      return instance;
    }

    const alive = () =>
      instances.filter(
        (i) => !i.killed && i.child.exitCode === null && i.child.signalCode === null,
      );

    async function kill(instance: Instance): Promise<void> {
      instance.killed = true;
      if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
      const exited = new Promise((resolve) => instance.child.once("exit", resolve));
      instance.child.kill("SIGKILL");
      await exited;
    }

    /** One attempt: the reply's status and body, or null when the connection failed. */
    async function attempt(id: string): Promise<{ status: number; body: string } | null> {
      const targets = alive();
      const target = targets[Math.floor(Math.random() * targets.length)];
      if (target === undefined) return null;
      try {
        const reply = await fetch(`${target.origin}/webhooks`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify({ ...SAMPLE_DLR, id }),
          signal: AbortSignal.timeout(20_000),
        });
        return { status: reply.status, body: await reply.text() };
      } catch {
        return null; // killed mid-request, or not listening any more: the provider retries
      }
    }

    /** Sends one report until it is acknowledged (2xx) or the bound passed: whether it was. */
    async function deliver(id: string): Promise<boolean> {
      const until = Date.now() + REPORT_BOUND_MS;
      while (Date.now() < until) {
        const reply = await attempt(id);
        if (reply !== null && reply.status >= 200 && reply.status < 300) return true;
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
      await Promise.all(FRAMEWORKS.map(start));
    });

    afterAll(async () => {
      await Promise.all(instances.map(kill));
      await admin?.end();
      await server?.close();
    });

    it(`acknowledges each report once written, none twice, through ${KILLS} kills and ${RESTARTS_AT_KILLS.length} restarts`, async () => {
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
        const replacements: Promise<Instance>[] = [];
        try {
          while (kills < KILLS) {
            await sleep(1000 + Math.random() * 1000);
            const victims = alive();
            const victim = victims[Math.floor(Math.random() * victims.length)];
            if (victim === undefined) continue;
            await kill(victim);
            kills++;
            // Its replacement starts while the others serve.
            replacements.push(start(victim.framework));
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

      const { rows } = await admin.query(
        "SELECT report_id, count(*)::int AS n FROM deliveries WHERE report_id = ANY($1) GROUP BY report_id",
        [ids],
      );
      const written = new Map(
        rows.map((r: { report_id: string; n: number }) => [r.report_id, r.n]),
      );
      const twice = ids.filter((id) => (written.get(id) ?? 0) > 1);
      const lost = ids.filter((id) => !written.has(id));
      expect({ twice, lost }).toEqual({ twice: [], lost: [] });

      // No process ended but by the test's kill -9 (a crash on a server message would show here).
      const crashed = instances
        .filter((i) => !i.killed && (i.child.exitCode !== null || i.child.signalCode !== null))
        .map((i) => `${i.framework} (${i.child.exitCode ?? i.child.signalCode}):\n${i.output()}`);
      expect(crashed).toEqual([]);
      expect(alive()).toHaveLength(FRAMEWORKS.length);
    });
  },
);
