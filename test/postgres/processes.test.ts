// Receiver processes (Express, Fastify, Hono) sharing one real PostgreSQL server through
// postgresInbox, each handler inserting into the test's own table through ctx.tx: a report
// sent to two processes at once is one row; a process killed before its COMMIT leaves no row
// and the retry inserts it once; one killed after its COMMIT leaves one row and the retry is a
// duplicate; while Postgres is stopped every adapter answers 503, and processing resumes.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { createReceiver } from "@reportkit/core";
import { postgresInbox } from "@reportkit/postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";
import { listening } from "../support/example-process.js";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../support/postgres-server.js";

interface Instance {
  readonly name: string;
  readonly origin: string;
  readonly child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
}

interface Reply {
  status: number;
  body: string;
  retryAfter: string | null;
}

const HANDLED = '{"ok":true}';
const DUPLICATE = '{"ok":true,"duplicate":true}';

describe.runIf(requirePostgresServer("processes.test.ts"))(
  "receiver processes sharing one Postgres",
  () => {
    let server: PostgresServer;
    let admin: pg.Pool;
    const instances: Instance[] = [];

    async function startInstance(
      framework: "express" | "fastify" | "hono",
      name: string,
      extraEnv: Record<string, string> = {},
    ): Promise<Instance> {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "--conditions=source", "receiver-process.ts", framework],
        {
          cwd: fileURLToPath(new URL(".", import.meta.url)),
          env: { ...process.env, TOKEN, DATABASE_URL: server.url, ...extraEnv },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      const { origin, output } = await listening(child, name);
      const instance = { name, origin, child, output };
      instances.push(instance);
      return instance;
    }

    async function send(instance: Instance, id: string): Promise<Reply> {
      const res = await fetch(`${instance.origin}/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ ...SAMPLE_DLR, id }),
      });
      return {
        status: res.status,
        body: await res.text(),
        retryAfter: res.headers.get("retry-after"),
      };
    }

    async function rows(ids: readonly string[]): Promise<Map<string, number>> {
      const { rows: found } = await admin.query(
        "SELECT report_id, count(*)::int AS n FROM deliveries WHERE report_id = ANY($1) GROUP BY report_id",
        [ids],
      );
      return new Map(found.map((r) => [r.report_id as string, r.n as number]));
    }

    async function killed(instance: Instance): Promise<void> {
      if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
      const exited = new Promise((resolve) => instance.child.once("exit", resolve));
      instance.child.kill("SIGKILL");
      await exited;
    }

    let express: Instance;
    let fastify: Instance;
    let hono: Instance;

    beforeAll(async () => {
      server = await startPostgresServer();
      admin = new pg.Pool({ connectionString: server.url });
      // Its idle connections end when the test stops the server: not an error of the test's.
      admin.on("error", () => {});
      await admin.query(
        "CREATE TABLE deliveries (report_id text NOT NULL, status text NOT NULL, framework text NOT NULL)",
      );
      [express, fastify, hono] = await Promise.all([
        startInstance("express", "express"),
        startInstance("fastify", "fastify"),
        startInstance("hono", "hono"),
      ]);
    });

    afterAll(async () => {
      await Promise.all(instances.map(killed));
      await admin?.end();
      await server?.close();
    });

    it("inserts each of 100 reports, each sent to Express and Fastify at once, as one row", async () => {
      const ids = Array.from({ length: 100 }, (_, i) => `${randomUUID()}:${i}`);
      const attempts = await Promise.all(
        ids.map(async (id, i) => {
          const pair = i % 2 === 0 ? [express, fastify] : [fastify, express];
          const replies = await Promise.all(pair.map((instance) => send(instance, id)));
          return { id, replies };
        }),
      );
      for (const { id, replies } of attempts) {
        for (const reply of replies) {
          // Handled, a duplicate (the copy waited for the first's COMMIT), or "retry later".
          const retryLater = reply.status === 409 && reply.retryAfter !== null;
          expect(
            [HANDLED, DUPLICATE].includes(reply.body) || retryLater,
            `${id}: ${reply.body}`,
          ).toBe(true);
        }
        expect(replies.filter((r) => r.body === HANDLED)).toHaveLength(1);
      }
      const counts = await rows(ids);
      expect(counts.size).toBe(100);
      for (const id of ids) expect(counts.get(id), id).toBe(1);
    });

    it("leaves no row when a process is killed (-9) after its insert and before COMMIT; the retry inserts it once", async () => {
      const victim = await startInstance("express", "victim-before-commit", {
        HANG_AFTER_INSERT: "1",
      });
      const id = `${randomUUID()}:1`;
      const first = send(victim, id).catch((error: unknown) => error);
      await vi.waitFor(() => expect(victim.output()).toContain(`inserted ${id}`), {
        timeout: 15_000,
        interval: 50,
      });
      await killed(victim);
      expect(await first).toBeInstanceOf(Error);
      expect((await rows([id])).get(id)).toBeUndefined();
      // Postgres rolled the dead session's transaction back: the key is free for the retry.
      const retry = await send(fastify, id);
      expect([retry.status, retry.body]).toEqual([200, HANDLED]);
      expect(await send(hono, id)).toMatchObject({ status: 200, body: DUPLICATE });
      expect((await rows([id])).get(id)).toBe(1);
    });

    it("keeps the one row when a process is killed (-9) after COMMIT and before its reply; the retry is a duplicate", async () => {
      const victim = await startInstance("fastify", "victim-after-commit", {
        KILL_AFTER_COMMIT: "1",
      });
      const id = `${randomUUID()}:1`;
      const first = await send(victim, id).catch((error: unknown) => error);
      expect(first).toBeInstanceOf(Error);
      await vi.waitFor(() => expect(victim.child.signalCode).toBe("SIGKILL"), { timeout: 10_000 });
      expect((await rows([id])).get(id)).toBe(1);
      const retry = await send(express, id);
      expect([retry.status, retry.body]).toEqual([200, DUPLICATE]);
      expect((await rows([id])).get(id)).toBe(1);
    });

    it("answers 503 from every adapter while Postgres is stopped (health says so), and resumes once it is back", async () => {
      const inbox = postgresInbox({ connectionString: server.url });
      const receiver = createReceiver({ secret: TOKEN, dedupe: inbox, onDelivery: () => {} });
      try {
        const up = await receiver.health();
        expect(up).toEqual({ ok: true, checks: { dedupe: { ok: true }, journal: { ok: true } } });
        const before = `${randomUUID()}:1`;
        expect((await send(hono, before)).body).toBe(HANDLED);

        await server.stop();
        const during = [`${randomUUID()}:1`, `${randomUUID()}:1`, `${randomUUID()}:1`];
        try {
          for (const instance of [express, fastify, hono]) {
            for (const id of [...during, before]) {
              const reply = await send(instance, id);
              expect(reply.status, `${instance.name} ${reply.body}`).toBe(503);
              expect(JSON.parse(reply.body).error.code).toBe("dedupe_unavailable");
              expect(reply.retryAfter).not.toBeNull();
            }
          }
          const down = await receiver.health();
          expect(down.ok).toBe(false);
          expect(down.checks.dedupe?.ok).toBe(false);
          expect(down.checks.dedupe?.message).toMatch(
            /^postgres: postgresInbox: ping failed on Postgres at 127\.0\.0\.1:\d+ \(.*ECONNREFUSED/,
          );
        } finally {
          await server.start();
        }

        // The pools open new connections by themselves: the provider's retries are processed.
        for (const [index, id] of during.entries()) {
          const instance = [express, fastify, hono][index] as Instance;
          await vi.waitFor(async () => expect((await send(instance, id)).body).toBe(HANDLED), {
            timeout: 15_000,
            interval: 250,
          });
        }
        expect(await send(express, before)).toMatchObject({ status: 200, body: DUPLICATE });
        const counts = await rows([...during, before]);
        for (const id of [...during, before]) expect(counts.get(id), id).toBe(1);
        expect((await receiver.health()).ok).toBe(true);
      } finally {
        await receiver.close();
      }
    });
  },
);
