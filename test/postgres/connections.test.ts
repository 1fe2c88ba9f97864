// The inbox's connections on a real PostgreSQL server: handlers that never finish do not keep
// their connections (Postgres ends the idle transaction at the lease, and the store closes the
// connection), so later reports are answered, health() recovers and the failures are journaled
// (the journal has connections of its own); a `ctx.tx` kept past its report refuses statements,
// so a late write never lands in the next report's transaction; a report key with NUL is
// processed and journaled; a borrowed pool is named by its own server in errors.
import { randomUUID } from "node:crypto";
import { createReceiver } from "@reportkit/core";
import type { JournalEntry } from "@reportkit/core/adapter";
import { type PostgresInbox, postgresInbox } from "@reportkit/postgres";
import { storedKey } from "@reportkit/wire/internal";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { TOKEN } from "../fixtures/samples.js";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../support/postgres-server.js";
import { answeredWithin, DUPLICATE, HANDLED, post } from "./inbox-rig.js";

describe.runIf(requirePostgresServer("connections.test.ts"))("the inbox's connections", () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  const pools: pg.Pool[] = [];
  const stores: PostgresInbox[] = [];
  const poolOf = (max: number, connectionString = server.url) => {
    const pool = new pg.Pool({ connectionString, max });
    pools.push(pool);
    return pool;
  };
  const inbox = (options: Parameters<typeof postgresInbox>[0]) => {
    const store = postgresInbox(options);
    stores.push(store);
    return store;
  };
  const rows = async (id: string) =>
    (await admin.query("SELECT count(*)::int AS n FROM deliveries WHERE report_id = $1", [id]))
      .rows[0].n as number;

  beforeAll(async () => {
    server = await startPostgresServer();
    admin = new pg.Pool({ connectionString: server.url });
    admin.on("error", () => {});
    await admin.query("CREATE TABLE deliveries (report_id text NOT NULL)");
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await Promise.all(pools.map((p) => p.end()));
    await admin?.end();
    await server?.close();
  });

  it("gets its connections back from 3 handlers that never finish (pool of 3, leaseMs 1000): later reports answered, health recovers, the failures journaled", async () => {
    const pool = poolOf(3);
    const store = inbox({ pool, leaseMs: 1000 });
    const receiver = createReceiver({
      secret: TOKEN,
      dedupe: store,
      deadlineMs: 300,
      logger: false,
      onDelivery: async (report, ctx) => {
        await ctx.tx.query("INSERT INTO deliveries VALUES ($1)", [report.id]);
        if (report.id.startsWith("stuck")) await new Promise(() => {});
      },
    });
    const stuck = [1, 2, 3].map((n) => `stuck-${randomUUID()}:${n}`);
    const replies = await answeredWithin(
      Promise.all(stuck.map((id) => receiver.fetch(post(id)))),
      15_000,
      "the replies to 3 stuck handlers",
    );
    for (const reply of replies) {
      expect(reply.status).toBe(503);
      expect((await reply.json()).error.code).toBe("handler_timeout");
    }
    const kept = await answeredWithin(
      store.journal.list({ status: "failed" }),
      15_000,
      "listing the journal while the pool is held",
    );
    expect(kept.filter((e) => stuck.some((id) => e.key.includes(id))).length).toBe(3);

    // Postgres ends the idle transactions at the lease; the store closes their connections.
    const later = `${randomUUID()}:1`;
    await vi.waitFor(
      async () => {
        const reply = await answeredWithin(
          receiver.fetch(post(later)),
          15_000,
          "a report after the stuck ones",
        );
        expect(await reply.text()).toBe(HANDLED);
      },
      { timeout: 20_000, interval: 200 },
    );
    expect(await rows(later)).toBe(1);
    for (const id of stuck) expect(await rows(id), id).toBe(0);
    for (let n = 0; n < 6; n++) {
      const reply = await answeredWithin(
        receiver.fetch(post(`${randomUUID()}:1`)),
        15_000,
        "a report",
      );
      expect(await reply.text()).toBe(HANDLED);
    }
    expect(await receiver.health()).toEqual({
      ok: true,
      checks: { dedupe: { ok: true }, journal: { ok: true } },
    });
    // Every stuck handler's connection is back: at the server's end of its idle transaction, or
    // at the latest when the store's own lease timer (leaseMs plus the statement timeout) fires.
    // On a loaded machine the server may end the third one after the reports above were
    // answered on the first two (the flake this wait replaced).
    await vi.waitFor(() => expect(pool.totalCount - pool.idleCount).toBe(0), {
      timeout: 15_000,
      interval: 100,
    });
  });

  it("refuses a statement on a ctx.tx kept past its report: the late write never lands in the next report's transaction", async () => {
    // One connection: the next report gets the same one the kept ctx.tx was.
    const store = inbox({ pool: poolOf(1) });
    let kept: pg.PoolClient | undefined;
    let inNext = () => {};
    const nextStarted = new Promise<void>((resolve) => {
      inNext = resolve;
    });
    let finishNext = () => {};
    const nextMayFinish = new Promise<void>((resolve) => {
      finishNext = resolve;
    });
    const receiver = createReceiver({
      secret: TOKEN,
      dedupe: store,
      logger: false,
      onDelivery: async (report, ctx) => {
        await ctx.tx.query("INSERT INTO deliveries VALUES ($1)", [report.id]);
        if (kept === undefined) {
          kept = ctx.tx;
          return;
        }
        inNext();
        await nextMayFinish;
      },
    });
    const first = `${randomUUID()}:1`;
    expect(await (await receiver.fetch(post(first))).text()).toBe(HANDLED);
    const next = `${randomUUID()}:1`;
    const pending = receiver.fetch(post(next));
    await answeredWithin(nextStarted, 15_000, "the next report's handler");
    const late = `late-${randomUUID()}`;
    const tx = kept as pg.PoolClient;
    await expect(tx.query("INSERT INTO deliveries VALUES ($1)", [late])).rejects.toThrow(
      `postgresInbox: a statement on ctx.tx of the report delivery:${first}:DELIVRD after the report was completed`,
    );
    // A failing late statement would have aborted the next report's transaction.
    await expect(tx.query("SELECT * FROM no_such_table")).rejects.toThrow(
      /after the report was completed/,
    );
    finishNext();
    expect(await (await pending).text()).toBe(HANDLED);
    expect(await rows(next)).toBe(1);
    expect(await rows(late)).toBe(0);
  });

  it("processes and journals a report whose key holds a NUL character (Postgres text cannot), kept by its hash", async () => {
    const store = inbox({ connectionString: server.url });
    let fail = true;
    // The parser refuses an id with a NUL (issue 42, 8); a `dedupe.key` of the app's may hold one.
    const receiver = createReceiver({
      secret: TOKEN,
      dedupe: { store, key: (report) => `nul\u0000${report.type === "delivery" ? report.id : ""}` },
      logger: false,
      onDelivery: async (report, ctx) => {
        await ctx.tx.query("INSERT INTO deliveries VALUES ($1)", [report.id]);
        if (fail) throw new Error("down");
      },
    });
    const id = `${randomUUID()}:1`;
    const kept = await storedKey(`nul\u0000${id}`);
    expect(kept).toMatch(/^key-sha256:[0-9a-f]{64}$/);
    expect((await receiver.fetch(post(id))).status).toBe(500);
    const listed = await answeredWithin(store.journal.list(), 15_000, "listing the journal");
    const entry = listed.find((e) => e.key === kept) as JournalEntry;
    expect(entry.status).toBe("failed");
    // A UTF-8 body is journaled as text.
    expect(entry.request.bodyEncoding).not.toBe("base64");
    expect(JSON.parse(entry.request.body).id).toBe(id);
    fail = false;
    expect(await (await receiver.fetch(post(id))).text()).toBe(HANDLED);
    expect(await (await receiver.fetch(post(id))).text()).toBe(DUPLICATE);
    expect(await rows(id)).toBe(1);
    expect((await store.journal.list()).find((e) => e.key === kept)?.status).toBe("resolved");
  });

  it("names a borrowed pool made from a connection string by that string's host and port", async () => {
    const store = inbox({ pool: poolOf(1, "postgres://postgres@127.0.0.1:1/postgres") });
    await expect(store.ping()).rejects.toThrow(
      /^postgresInbox: ping failed on Postgres at 127\.0\.0\.1:1 \(/,
    );
  });
});
