// Several instances of one service behind one URL, as separate Node processes (one per
// adapter, plus one that is killed mid-handler), sharing one real redis-server through
// @reportkit/redis: every report's side effect happens exactly once, a killed instance's claim
// runs out and the provider's retry is processed, and while Redis is down nothing is
// acknowledged. The side effect is a line per handler run in a file per process.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";
import { listening } from "../support/example-process.js";
import { type RedisServer, requireRedisServer, startRedisServer } from "../support/redis-server.js";

const LEASE_MS = 3000;
const DEADLINE_MS = 2000;

interface Instance {
  readonly name: string;
  readonly origin: string;
  readonly child: ChildProcess;
}

interface Reply {
  status: number;
  body: string;
  retryAfter: string | null;
}

describe.runIf(requireRedisServer("several-instances.test.ts"))(
  "several receiver processes sharing one Redis",
  () => {
    let redis: RedisServer;
    let effectsDir: string;
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
          env: {
            ...process.env,
            TOKEN,
            REDIS_URL: redis.url,
            LEASE_MS: String(LEASE_MS),
            DEADLINE_MS: String(DEADLINE_MS),
            HANDLER_MS: "20",
            EFFECTS_FILE: join(effectsDir, `${name}.log`),
            ...extraEnv,
          },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      const { origin } = await listening(child, name);
      const instance = { name, origin, child };
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

    /** How many times each report's handler ran to the end, over every instance. */
    function effects(): Map<string, number> {
      const counts = new Map<string, number>();
      for (const file of readdirSync(effectsDir)) {
        for (const line of readFileSync(join(effectsDir, file), "utf8").split("\n")) {
          if (line === "" || line.startsWith("start ")) continue;
          counts.set(line, (counts.get(line) ?? 0) + 1);
        }
      }
      return counts;
    }

    const HANDLED = '{"ok":true}';
    const DUPLICATE = '{"ok":true,"duplicate":true}';
    const isRetryLater = (reply: Reply) =>
      (reply.status === 409 || reply.status === 503) && reply.retryAfter !== null;

    let express: Instance;
    let fastify: Instance;
    let hono: Instance;

    beforeAll(async () => {
      // Append-only, so what was processed before a Redis restart is still known after it.
      redis = await startRedisServer({ appendOnly: true });
      effectsDir = mkdtempSync(join(tmpdir(), "reportkit-effects-"));
      [express, fastify, hono] = await Promise.all([
        startInstance("express", "express"),
        startInstance("fastify", "fastify"),
        startInstance("hono", "hono"),
      ]);
    });

    afterAll(async () => {
      for (const { child } of instances) {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }
      await redis?.close();
      if (effectsDir !== undefined && existsSync(effectsDir)) {
        rmSync(effectsDir, { recursive: true, force: true });
      }
    });

    it("runs each of 100 reports, each sent to two instances at once, exactly once", async () => {
      const pairs = [
        [express, fastify],
        [fastify, hono],
        [hono, express],
      ] as const;
      const ids = Array.from({ length: 100 }, (_, i) => `${randomUUID()}:${i}`);
      const attempts = await Promise.all(
        ids.map(async (id, i) => {
          const pair = pairs[i % 3] as readonly [Instance, Instance];
          const replies = await Promise.all(pair.map((instance) => send(instance, id)));
          return { id, pair, replies };
        }),
      );

      for (const { id, pair, replies } of attempts) {
        for (const reply of replies) {
          // Handled, acknowledged as a duplicate, or "retry later": never anything else.
          expect(
            [HANDLED, DUPLICATE].includes(reply.body) || isRetryLater(reply),
            `${id}: ${reply.status} ${reply.body}`,
          ).toBe(true);
          if (reply.status < 300) expect(reply.status).toBe(200);
        }
        expect(replies.filter((r) => r.body === HANDLED).length).toBeLessThanOrEqual(1);
        // The provider retries whatever got no 2xx: each retry is acknowledged, never run again.
        for (const [index, reply] of replies.entries()) {
          if (reply.status < 300) continue;
          const instance = pair[index] as Instance;
          await vi.waitFor(
            async () => {
              const retry = await send(instance, id);
              expect([HANDLED, DUPLICATE]).toContain(retry.body);
            },
            { timeout: LEASE_MS + 10_000, interval: 200 },
          );
        }
      }

      // The two copies really overlapped: some found the other's claim still running.
      const inProgress = attempts.flatMap((a) => a.replies).filter((r) => r.status === 409);
      expect(inProgress.length).toBeGreaterThan(0);
      for (const reply of inProgress) expect(JSON.parse(reply.body).error.code).toBe("in_progress");

      const counts = effects();
      for (const id of ids) expect(counts.get(id), id).toBe(1);
    });

    it("processes the provider's retry once the lease of an instance killed mid-handler runs out", async () => {
      const victim = await startInstance("fastify", "victim", { HANG: "1" });
      const id = `${randomUUID()}:1`;
      const first = send(victim, id).catch((error: unknown) => error);
      await vi.waitFor(
        () => {
          expect(readFileSync(join(effectsDir, "victim.log"), "utf8")).toContain(`start ${id}`);
        },
        { timeout: 10_000, interval: 50 },
      );
      const exited = new Promise((resolve) => victim.child.once("exit", resolve));
      victim.child.kill("SIGKILL");
      await exited;
      expect(await first).toBeInstanceOf(Error);

      // Still claimed by the dead instance: retry later, the handler not run.
      const early = await send(hono, id);
      expect(early.status, early.body).toBe(409);
      expect(JSON.parse(early.body).error.code).toBe("in_progress");
      expect(early.retryAfter).not.toBeNull();
      expect(effects().get(id)).toBeUndefined();

      // Once the lease has run out, the provider's retry is processed, once.
      await vi.waitFor(
        async () => {
          const retry = await send(express, id);
          expect(retry.body).toBe(HANDLED);
        },
        { timeout: LEASE_MS + 15_000, interval: 250 },
      );
      expect(await send(hono, id)).toMatchObject({ status: 200, body: DUPLICATE });
      expect(effects().get(id)).toBe(1);
    });

    it("answers 503, never 2xx, while Redis is down, and processes reports again once it is back", async () => {
      const before = `${randomUUID()}:1`;
      expect((await send(express, before)).body).toBe(HANDLED);
      await redis.stop();
      const during = Array.from({ length: 3 }, () => `${randomUUID()}:1`);
      try {
        for (const instance of [express, fastify, hono]) {
          for (const id of [...during, before]) {
            const reply = await send(instance, id);
            expect(reply.status, `${instance.name} ${reply.body}`).toBe(503);
            expect(JSON.parse(reply.body).error.code).toBe("dedupe_unavailable");
            expect(reply.retryAfter).not.toBeNull();
          }
        }
        for (const id of during) expect(effects().get(id)).toBeUndefined();
      } finally {
        await redis.start();
      }

      // The instances reconnect by themselves; the provider's retries are then processed.
      for (const [index, id] of during.entries()) {
        const instance = [express, fastify, hono][index] as Instance;
        await vi.waitFor(async () => expect((await send(instance, id)).body).toBe(HANDLED), {
          timeout: 15_000,
          interval: 250,
        });
      }
      // What was processed before the outage is still known (append-only Redis).
      expect(await send(hono, before)).toMatchObject({ status: 200, body: DUPLICATE });
      const counts = effects();
      for (const id of [...during, before]) expect(counts.get(id), id).toBe(1);
    });
  },
);
