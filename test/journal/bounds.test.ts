// The failure journal keeps personal data bounded, in Postgres and in Redis alike: a failed or
// refused entry goes `journalRetentionMs` (default 14 days) after it was last seen, not only a
// resolved one; at most `journalMaxEntries` are kept, the oldest dropped first; with
// `journalBodies: "redacted"` no phone number is stored; and `list` reads only what it gives
// (Redis: a bounded page of the index, never every entry for `limit: 1`).
import { randomUUID } from "node:crypto";
import { createReceiver } from "@reportkit/core";
import {
  DEFAULT_JOURNAL_RETENTION_MS,
  type JournalRecord,
  type ReadableJournal,
} from "@reportkit/core/adapter";
import { type PostgresInbox, postgresInbox, postgresInboxSql } from "@reportkit/postgres";
import { type RedisDedupeStore, redisDedupe, redisJournal } from "@reportkit/redis";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../support/postgres-server.js";
import { type RedisServer, requireRedisServer, startRedisServer } from "../support/redis-server.js";

const DAY = 24 * 60 * 60 * 1000;
const NUMBERS = ["919876543210", "918068281234", "918068281235"];

const post = (body: object) =>
  new Request("http://localhost/webhooks", {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

/** A failed entry of a report with `id`, last seen at `at`. */
const failed = (id: string, at: Date): JournalRecord => ({
  key: `delivery:${id}:DELIVRD`,
  kind: "delivery",
  status: "failed",
  request: {
    method: "POST",
    url: "/webhooks",
    contentType: "application/json",
    body: JSON.stringify({ ...SAMPLE_DLR, id }),
    bodyEncoding: "utf8",
  },
  error: { code: "handler_failed", message: "down" },
  at,
});

/** A receiver whose handlers fail, quoting the number, so that its reports are journaled. */
function failing(dedupe: PostgresInbox | RedisDedupeStore) {
  const fail = () => {
    throw new Error("no customer 919876543210");
  };
  return createReceiver({ secret: TOKEN, dedupe, logger: false, onDelivery: fail, onCall: fail });
}

describe.runIf(requirePostgresServer("bounds.test.ts"))("the journal's bounds in Postgres", () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  const stores: PostgresInbox[] = [];
  const inbox = (options: Omit<Parameters<typeof postgresInbox>[0], "connectionString"> = {}) => {
    const store = postgresInbox({ connectionString: server.url, ...options });
    stores.push(store);
    return store;
  };
  const keysIn = async (table: string) =>
    (await admin.query(`SELECT key FROM ${table} ORDER BY last_seen, key`)).rows.map(
      (r: { key: string }) => r.key,
    );

  beforeAll(async () => {
    server = await startPostgresServer();
    admin = new pg.Pool({ connectionString: server.url });
    admin.on("error", () => {});
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await admin?.end();
    await server?.close();
  });

  it("deletes failed, refused and resolved entries past their retention, keeping the newer ones", async () => {
    const journalTable = "retention_journal";
    await admin.query(postgresInboxSql({ journalTable }));
    const entries = [
      ["refused-15d", "refused", 15 * DAY],
      ["failed-15d", "failed", 15 * DAY],
      ["failed-13d", "failed", 13 * DAY],
      ["resolved-2d", "resolved", 2 * DAY],
      ["resolved-12h", "resolved", DAY / 2],
    ] as const;
    for (const [key, status, age] of entries) {
      await admin.query(
        `INSERT INTO ${journalTable} (key, kind, status, method, url, content_type, body, body_encoding, first_seen, last_seen, attempts, last_error)
         VALUES ($1, 'delivery', $2, 'POST', '/webhooks', 'application/json', '{}', 'utf8', now() - $3 * interval '1 millisecond', now() - $3 * interval '1 millisecond', 1, 'handler_failed: down')`,
        [key, status, age],
      );
    }
    // The store prunes in the background after a report it processed (at most every 10 min).
    const receiver = createReceiver({
      secret: TOKEN,
      dedupe: inbox({ journalTable }),
      onDelivery: () => {},
    });
    expect((await receiver.fetch(post({ ...SAMPLE_DLR, id: `${randomUUID()}:1` }))).status).toBe(
      200,
    );
    await vi.waitFor(
      async () => expect(await keysIn(journalTable)).toEqual(["failed-13d", "resolved-12h"]),
      { timeout: 15_000, interval: 100 },
    );
  });

  it("keeps at most journalMaxEntries, the oldest dropped first", async () => {
    const journalTable = "capped_journal";
    const store = inbox({ journalTable, journalMaxEntries: 5 });
    const ids = Array.from({ length: 8 }, () => randomUUID());
    const start = Date.now() - 60_000;
    for (const [n, id] of ids.entries()) {
      await store.journal.record(failed(id, new Date(start + n * 1000)));
    }
    await vi.waitFor(
      async () =>
        expect(await keysIn(journalTable)).toEqual(
          ids.slice(3).map((id) => `delivery:${id}:DELIVRD`),
        ),
      { timeout: 15_000, interval: 100 },
    );
  });

  it("stores no phone number with journalBodies: 'redacted'", async () => {
    const journalTable = "redacted_journal";
    const receiver = failing(inbox({ journalTable, journalBodies: "redacted" }));
    expect((await receiver.fetch(post({ ...SAMPLE_DLR, id: `${randomUUID()}:1` }))).status).toBe(
      500,
    );
    expect((await receiver.fetch(post(SAMPLE_CALL))).status).toBe(500);
    const { rows } = await admin.query(`SELECT * FROM ${journalTable}`);
    expect(rows).toHaveLength(2);
    for (const number of NUMBERS) expect(JSON.stringify(rows)).not.toContain(number);
    expect(
      rows.map((r: { body: string }) => JSON.parse(r.body).id ?? JSON.parse(r.body).mid),
    ).toEqual(expect.arrayContaining([SAMPLE_CALL.mid]));
  });
});

describe.runIf(requireRedisServer("bounds.test.ts"))("the journal's bounds in Redis", () => {
  let server: RedisServer;
  let admin: Redis;
  const closing: { close(): Promise<void> }[] = [];
  const store = (options: Omit<Parameters<typeof redisDedupe>[0], "connection"> = {}) => {
    const created = redisDedupe({ connection: server.url, ...options });
    closing.push(created);
    return created;
  };
  const journal = (options: Omit<Parameters<typeof redisJournal>[0], "connection"> = {}) => {
    const created = redisJournal({ connection: server.url, ...options });
    closing.push(created);
    return created;
  };
  const entryKey = (prefix: string, id: string) =>
    `${prefix}{journal}:entry:delivery:${id}:DELIVRD`;

  beforeAll(async () => {
    server = await startRedisServer();
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    await Promise.all(closing.map((c) => c.close()));
    admin?.disconnect();
    await server?.close();
  });

  it("expires a failed entry 14 days after it was last seen, and forgets one older than that", async () => {
    const prefix = "retention:";
    const kept = journal({ prefix });
    const fresh = randomUUID();
    const stale = randomUUID();
    await kept.record(failed(stale, new Date(Date.now() - 15 * DAY)));
    await kept.record(failed(fresh, new Date()));
    const ttl = await admin.pttl(entryKey(prefix, fresh));
    expect(ttl).toBeGreaterThan(DEFAULT_JOURNAL_RETENTION_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(DEFAULT_JOURNAL_RETENTION_MS);
    expect(await admin.exists(entryKey(prefix, stale))).toBe(0);
    expect((await kept.list()).map((e) => e.key)).toEqual([`delivery:${fresh}:DELIVRD`]);
    expect(await admin.zcard(`${prefix}{journal}:index`)).toBe(1);
  });

  it("keeps at most journalMaxEntries, the oldest dropped first", async () => {
    const prefix = "capped:";
    const { journal: capped } = store({ journalPrefix: prefix, journalMaxEntries: 5 });
    const ids = Array.from({ length: 8 }, () => randomUUID());
    const start = Date.now() - 60_000;
    for (const [n, id] of ids.entries())
      await capped.record(failed(id, new Date(start + n * 1000)));
    expect((await capped.list()).map((e) => e.key)).toEqual(
      ids.slice(3).map((id) => `delivery:${id}:DELIVRD`),
    );
    for (const id of ids.slice(0, 3)) expect(await admin.exists(entryKey(prefix, id))).toBe(0);
  });

  it("stores no phone number with journalBodies: 'redacted'", async () => {
    const prefix = "redacted:";
    const receiver = failing(store({ journalPrefix: prefix, journalBodies: "redacted" }));
    expect((await receiver.fetch(post({ ...SAMPLE_DLR, id: `${randomUUID()}:1` }))).status).toBe(
      500,
    );
    expect((await receiver.fetch(post(SAMPLE_CALL))).status).toBe(500);
    const names = await admin.keys(`${prefix}*`);
    const stored = await Promise.all(
      names.filter((n) => n.includes(":entry:")).map((n) => admin.hgetall(n)),
    );
    expect(stored).toHaveLength(2);
    const text = JSON.stringify({ names, stored });
    for (const number of NUMBERS) expect(text).not.toContain(number);
  });

  it("reads one entry of the index for `limit: 1` of 20,000, not all of them", async () => {
    const prefix = "large:";
    const large: ReadableJournal = journal({ prefix });
    const start = Date.now() - 20_000;
    const ids = Array.from({ length: 20_000 }, () => randomUUID());
    for (let i = 0; i < ids.length; i += 1000) {
      await Promise.all(
        ids.slice(i, i + 1000).map((id, j) => large.record(failed(id, new Date(start + i + j)))),
      );
    }
    const calls = async () => {
      const stats = await admin.info("commandstats");
      return Number(/cmdstat_hgetall:calls=(\d+)/.exec(stats)?.[1] ?? 0);
    };
    const before = await calls();
    const listed = await large.list({ limit: 1 });
    expect(listed.map((e) => e.key)).toEqual([`delivery:${ids[0]}:DELIVRD`]);
    expect((await calls()) - before).toBe(1);
    const failedOnes = await large.list({ status: "failed", limit: 3 });
    expect(failedOnes.map((e) => e.key)).toEqual(
      ids.slice(0, 3).map((id) => `delivery:${id}:DELIVRD`),
    );
    expect((await calls()) - before).toBeLessThanOrEqual(1 + 500);
  });
});
