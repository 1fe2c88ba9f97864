// A network partition between the receiver and a real PostgreSQL server: a TCP proxy of the
// test's own relays the store's connections, then stops relaying (the server neither answers
// nor closes: a frozen host, a dropped route). Every store call is bounded, so each report gets
// 503 dedupe_unavailable in time, never no answer, whether the partition comes before the claim
// or before the commit; the connections it froze are closed, so once the network is back the
// next report is processed.
import { randomUUID } from "node:crypto";
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net";
import { createReceiver } from "@reportkit/core";
import { type PostgresInbox, postgresInbox } from "@reportkit/postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { TOKEN } from "../fixtures/samples.js";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../support/postgres-server.js";
import { answeredWithin, HANDLED, post } from "./inbox-rig.js";

interface Proxy {
  readonly port: number;
  /** Stops relaying on every connection open now: what either side sends is dropped. */
  freeze(): void;
  /** Connections opened from now on are relayed again (the frozen ones stay frozen). */
  heal(): void;
  close(): Promise<void>;
}

/** A TCP proxy to 127.0.0.1:`target` that can stop relaying, as a partition does. */
async function tcpProxy(target: number): Promise<Proxy> {
  const sockets = new Set<Socket>();
  let healthy = true;
  const frozen = new WeakSet<Socket>();
  const server: Server = createServer((client) => {
    const upstream = tcpConnect(target, "127.0.0.1");
    if (!healthy) {
      frozen.add(client);
      frozen.add(upstream);
    }
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.on("data", (chunk) => {
        if (!frozen.has(from)) to.write(chunk);
      });
      from.on("error", () => {});
      from.on("close", () => {
        sockets.delete(from);
        if (!frozen.has(from)) to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    port: typeof address === "object" && address !== null ? address.port : 0,
    freeze() {
      healthy = false;
      for (const socket of sockets) frozen.add(socket);
    },
    heal() {
      healthy = true;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.runIf(requirePostgresServer("partition.test.ts"))(
  "a partition between the inbox and Postgres",
  () => {
    let server: PostgresServer;
    let admin: pg.Pool;
    const proxies: Proxy[] = [];
    const stores: PostgresInbox[] = [];
    const pools: pg.Pool[] = [];

    async function throughProxy(): Promise<{ proxy: Proxy; pool: pg.Pool; store: PostgresInbox }> {
      const proxy = await tcpProxy(server.port);
      proxies.push(proxy);
      // A pool of the test's, to see its connections idle before the partition.
      const pool = new pg.Pool({
        connectionString: `postgres://postgres@127.0.0.1:${proxy.port}/postgres`,
        connectionTimeoutMillis: 5000,
      });
      pools.push(pool);
      const store = postgresInbox({
        pool,
        timeoutMs: 500,
        lockTimeoutMs: 500,
        // A session the partition cut off is ended by the server this long after it went idle.
        leaseMs: 2000,
      });
      stores.push(store);
      return { proxy, pool, store };
    }

    beforeAll(async () => {
      server = await startPostgresServer();
      admin = new pg.Pool({ connectionString: server.url });
      admin.on("error", () => {});
      await admin.query("CREATE TABLE deliveries (report_id text NOT NULL)");
    });
    afterAll(async () => {
      await Promise.all(stores.map((s) => s.close()));
      await Promise.all(proxies.map((p) => p.close()));
      await Promise.all(pools.map((p) => p.end()));
      await admin?.end();
      await server?.close();
    });

    it("answers 503 dedupe_unavailable in time when the partition comes before the claim, and processes again once it is over", async () => {
      const { proxy, pool, store } = await throughProxy();
      const receiver = createReceiver({
        secret: TOKEN,
        dedupe: store,
        logger: false,
        onDelivery: async (report, ctx) => {
          await ctx.tx.query("INSERT INTO deliveries VALUES ($1)", [report.id]);
        },
      });
      // Warm: the tables are there and the pool holds an idle connection through the proxy.
      // The first report starts the store's background prune; the second's claim, and the next
      // one's, take a connection the pool holds idle.
      for (let n = 0; n < 2; n++) {
        expect(await (await receiver.fetch(post(`${randomUUID()}:1`))).text()).toBe(HANDLED);
        await vi.waitFor(
          () => expect([pool.idleCount, pool.waitingCount]).toEqual([pool.totalCount, 0]),
          { timeout: 10_000, interval: 50 },
        );
      }
      proxy.freeze();
      const id = `${randomUUID()}:1`;
      const reply = await answeredWithin(
        receiver.fetch(post(id)),
        20_000,
        "a report during the partition",
      );
      expect(reply.status).toBe(503);
      expect((await reply.json()).error.code).toBe("dedupe_unavailable");
      const health = await answeredWithin(
        receiver.health(),
        20_000,
        "health() during the partition",
      );
      expect(health.ok).toBe(false);

      proxy.heal();
      await vi.waitFor(
        async () => {
          const again = await answeredWithin(
            receiver.fetch(post(id)),
            20_000,
            "a retry after the partition",
          );
          expect(await again.text()).toBe(HANDLED);
        },
        { timeout: 30_000, interval: 200 },
      );
      const { rows } = await admin.query(
        "SELECT count(*)::int AS n FROM deliveries WHERE report_id = $1",
        [id],
      );
      expect(rows).toEqual([{ n: 1 }]);
    });

    it("answers 503 dedupe_unavailable in time when the partition comes before the commit (no deadline to hide it)", async () => {
      const { proxy, store } = await throughProxy();
      let inHandler = () => {};
      const started = new Promise<void>((resolve) => {
        inHandler = resolve;
      });
      let finish = () => {};
      const mayFinish = new Promise<void>((resolve) => {
        finish = resolve;
      });
      const receiver = createReceiver({
        secret: TOKEN,
        dedupe: store,
        deadlineMs: false,
        logger: false,
        onDelivery: async (report, ctx) => {
          await ctx.tx.query("INSERT INTO deliveries VALUES ($1)", [report.id]);
          inHandler();
          await mayFinish;
        },
      });
      const id = `${randomUUID()}:1`;
      const pending = receiver.fetch(post(id));
      await answeredWithin(started, 20_000, "the handler's insert");
      proxy.freeze();
      finish();
      const reply = await answeredWithin(
        pending,
        20_000,
        "a report whose commit meets the partition",
      );
      expect(reply.status).toBe(503);
      expect((await reply.json()).error.code).toBe("dedupe_unavailable");
      // The server rolls the transaction back once the session ends (its lease, or the closed socket).
      proxy.heal();
      await vi.waitFor(
        async () => {
          const again = await answeredWithin(
            receiver.fetch(post(id)),
            20_000,
            "a retry after the partition",
          );
          expect(await again.text()).toBe(HANDLED);
        },
        { timeout: 30_000, interval: 200 },
      );
      const { rows } = await admin.query(
        "SELECT count(*)::int AS n FROM deliveries WHERE report_id = $1",
        [id],
      );
      expect(rows).toEqual([{ n: 1 }]);
    });
  },
);
