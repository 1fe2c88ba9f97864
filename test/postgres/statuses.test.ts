// A message's status that only moves forward, through real HTTP into two receiver processes
// (Express and Fastify) sharing one real PostgreSQL server, each handler calling
// recordStatus(ctx.tx, report): a late intermediate status never overwrites a final one, in
// whatever order the reports come and whichever process takes them at the same instant.
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

interface Instance {
  readonly origin: string;
  readonly child: ChildProcess;
}

/** A delivery report of `status`; intermediate ones carry no delivery time (as the provider's). */
function dlr(id: string, status: string, delivTime?: string): Record<string, unknown> {
  const { deliv_time: _sample, ...rest } = SAMPLE_DLR;
  return delivTime === undefined
    ? { ...rest, id, status }
    : { ...rest, id, status, deliv_time: delivTime };
}

describe.runIf(requirePostgresServer("statuses.test.ts"))(
  "recordStatus in receiver processes sharing one Postgres",
  () => {
    let server: PostgresServer;
    let admin: pg.Pool;
    const instances: Instance[] = [];
    let express: Instance;
    let fastify: Instance;

    async function startInstance(framework: "express" | "fastify"): Promise<Instance> {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "--conditions=source", "status-process.ts", framework],
        {
          cwd: fileURLToPath(new URL(".", import.meta.url)),
          env: { ...process.env, TOKEN, DATABASE_URL: server.url },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      const { origin } = await listening(child, `status-process ${framework}`);
      const instance = { origin, child };
      instances.push(instance);
      return instance;
    }

    async function send(instance: Instance, report: Record<string, unknown>): Promise<string> {
      const res = await fetch(`${instance.origin}/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify(report),
      });
      return `${res.status} ${await res.text()}`;
    }

    async function statusOf(id: string) {
      const { rows } = await admin.query(
        "SELECT status, outcome, final, previous_status FROM reportkit_message_status WHERE message_id = $1",
        [id],
      );
      return rows[0];
    }

    async function historyOf(id: string) {
      const { rows } = await admin.query(
        "SELECT status, applied, conflict FROM reportkit_status_history WHERE message_id = $1 ORDER BY id",
        [id],
      );
      return rows;
    }

    beforeAll(async () => {
      server = await startPostgresServer();
      admin = new pg.Pool({ connectionString: server.url });
      [express, fastify] = await Promise.all([startInstance("express"), startInstance("fastify")]);
    });

    afterAll(async () => {
      await Promise.all(
        instances.map(
          (instance) =>
            new Promise<void>((resolve) => {
              if (instance.child.exitCode !== null || instance.child.signalCode !== null) {
                return resolve();
              }
              instance.child.once("exit", () => resolve());
              instance.child.kill("SIGTERM");
            }),
        ),
      );
      await admin?.end();
      await server?.close();
    });

    it("ENROUTE, DELIVRD, then a late AWAITING-DLR: the message stays DELIVRD, with three history rows", async () => {
      const id = `${randomUUID()}:1`;
      expect(await send(express, dlr(id, "ENROUTE"))).toBe('200 {"ok":true}');
      expect(await statusOf(id)).toEqual({
        status: "ENROUTE",
        outcome: "pending",
        final: false,
        previous_status: null,
      });
      expect(await send(fastify, dlr(id, "DELIVRD", "2021-04-09 16:27:51"))).toBe(
        '200 {"ok":true}',
      );
      // The provider's retry, 30 minutes late, of a status older than DELIVRD.
      expect(await send(express, dlr(id, "AWAITING-DLR"))).toBe('200 {"ok":true}');
      expect(await statusOf(id)).toEqual({
        status: "DELIVRD",
        outcome: "delivered",
        final: true,
        previous_status: "ENROUTE",
      });
      expect(await historyOf(id)).toEqual([
        { status: "ENROUTE", applied: true, conflict: false },
        { status: "DELIVRD", applied: true, conflict: false },
        { status: "AWAITING-DLR", applied: false, conflict: false },
      ]);
    });

    it("DELIVRD before ENROUTE: the message stays DELIVRD", async () => {
      const id = `${randomUUID()}:1`;
      expect(await send(fastify, dlr(id, "DELIVRD", "2021-04-09 16:27:51"))).toBe(
        '200 {"ok":true}',
      );
      expect(await send(express, dlr(id, "ENROUTE"))).toBe('200 {"ok":true}');
      expect(await statusOf(id)).toEqual({
        status: "DELIVRD",
        outcome: "delivered",
        final: true,
        previous_status: null,
      });
      expect(await historyOf(id)).toEqual([
        { status: "DELIVRD", applied: true, conflict: false },
        { status: "ENROUTE", applied: false, conflict: false },
      ]);
    });

    it("200 messages whose ENROUTE and DELIVRD go at once to the two processes in random order all end DELIVRD", async () => {
      const ids = Array.from({ length: 200 }, (_, i) => `${randomUUID()}:${i}`);
      const orders = { deliveredFirst: 0, enrouteFirst: 0 };
      const sendPair = async (id: string) => {
        const reports = [dlr(id, "ENROUTE"), dlr(id, "DELIVRD", "2021-04-09 16:27:51")];
        if (Math.random() < 0.5) reports.reverse();
        orders[reports[0]?.status === "DELIVRD" ? "deliveredFirst" : "enrouteFirst"] += 1;
        const targets = Math.random() < 0.5 ? [express, fastify] : [fastify, express];
        // Both requests leave in the same tick, each to its own process.
        return Promise.all(reports.map((report, i) => send(targets[i] as Instance, report)));
      };
      // 20 messages (40 requests) at a time: each process's pool has 10 connections.
      const replies: string[] = [];
      for (let start = 0; start < ids.length; start += 20) {
        const batch = await Promise.all(ids.slice(start, start + 20).map(sendPair));
        replies.push(...batch.flat());
      }
      expect(replies.filter((reply) => reply !== '200 {"ok":true}')).toEqual([]);
      expect(orders.deliveredFirst + orders.enrouteFirst).toBe(200);

      const { rows } = await admin.query(
        `SELECT status, count(*)::int AS n FROM reportkit_message_status
         WHERE message_id = ANY($1) GROUP BY status`,
        [ids],
      );
      expect(rows).toEqual([{ status: "DELIVRD", n: 200 }]);
      const history = await admin.query(
        `SELECT status, applied, count(*)::int AS n FROM reportkit_status_history
         WHERE message_id = ANY($1) GROUP BY status, applied ORDER BY status, applied`,
        [ids],
      );
      // Every DELIVRD applied; an ENROUTE applied only when it came first.
      const counts = new Map(history.rows.map((r) => [`${r.status} ${r.applied}`, r.n]));
      expect(counts.get("DELIVRD true")).toBe(200);
      expect(counts.get("DELIVRD false")).toBeUndefined();
      expect((counts.get("ENROUTE true") ?? 0) + (counts.get("ENROUTE false") ?? 0)).toBe(200);
    });
  },
);
