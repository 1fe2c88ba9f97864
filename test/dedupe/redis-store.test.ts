// @reportkit/redis against a real redis-server: the claim/complete/release protocol, leases
// that run out, atomic claims under concurrency, and a Redis that goes away and comes back.
import { randomUUID } from "node:crypto";
import { DEFAULT_DEDUPE_TTL_MS, DEFAULT_LEASE_MS } from "@reportkit/core/adapter";
import { type RedisDedupeOptions, type RedisDedupeStore, redisDedupe } from "@reportkit/redis";
import { storedKey } from "@reportkit/wire/internal";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type RedisServer, requireRedisServer, startRedisServer } from "../support/redis-server.js";

describe.runIf(requireRedisServer("redis-store.test.ts"))("redisDedupe on a real Redis", () => {
  let redis: RedisServer;
  let inspect: Redis;
  const stores: RedisDedupeStore[] = [];
  const store = (options: Partial<RedisDedupeOptions> = {}) => {
    const created = redisDedupe({ connection: redis.url, ...options });
    stores.push(created);
    return created;
  };
  const key = () => `delivery:${randomUUID()}:1:DELIVRD`;

  beforeAll(async () => {
    redis = await startRedisServer();
    inspect = new Redis(redis.url, { lazyConnect: true });
    await inspect.connect();
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    inspect?.disconnect();
    await redis?.close();
  });

  it("claims a new key, then reports it busy to another owner, then done once completed", async () => {
    const dedupe = store();
    const k = key();
    expect(await dedupe.claim(k, "a")).toBe("claimed");
    expect(await dedupe.claim(k, "b")).toBe("busy");
    expect(await dedupe.claim(k, "a")).toBe("busy");
    await dedupe.complete(k, "a");
    expect(await dedupe.claim(k, "b")).toBe("done");
    expect(await inspect.get(`reportkit:dedupe:${k}`)).toBe("done");
    const ttl = await inspect.pttl(`reportkit:dedupe:${k}`);
    expect(ttl).toBeGreaterThan(DEFAULT_DEDUPE_TTL_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(DEFAULT_DEDUPE_TTL_MS);
  });

  it("holds a claim for the lease, with the default lease and prefix", async () => {
    const dedupe = store();
    expect(dedupe.leaseMs).toBe(DEFAULT_LEASE_MS);
    expect(dedupe.ttlMs).toBe(DEFAULT_DEDUPE_TTL_MS);
    const k = key();
    await dedupe.claim(k, "a");
    const ttl = await inspect.pttl(`reportkit:dedupe:${k}`);
    expect(ttl).toBeGreaterThan(DEFAULT_LEASE_MS - 10_000);
    expect(ttl).toBeLessThanOrEqual(DEFAULT_LEASE_MS);
  });

  it("frees a released key so the retry claims it again", async () => {
    const dedupe = store();
    const k = key();
    expect(await dedupe.claim(k, "a")).toBe("claimed");
    await dedupe.release(k, "a");
    expect(await inspect.exists(`reportkit:dedupe:${k}`)).toBe(0);
    expect(await dedupe.claim(k, "b")).toBe("claimed");
  });

  it("releases only for the owner still holding the key", async () => {
    const dedupe = store({ leaseMs: 150 });
    const k = key();
    expect(await dedupe.claim(k, "a")).toBe("claimed");
    // a's lease runs out by itself; b claims; a's late release must not free b's claim.
    await vi.waitFor(async () => expect(await dedupe.claim(k, "b")).toBe("claimed"), {
      timeout: 10_000,
      interval: 50,
    });
    await dedupe.release(k, "a");
    expect(await dedupe.claim(k, "c")).toBe("busy");
    // Nor may a release free a done key.
    await dedupe.complete(k, "b");
    await dedupe.release(k, "b");
    expect(await dedupe.claim(k, "c")).toBe("done");
  });

  it("marks a key done whoever holds it (a slow attempt whose lease ran out still succeeded)", async () => {
    const dedupe = store({ leaseMs: 100 });
    const k = key();
    await dedupe.claim(k, "a");
    await vi.waitFor(async () => expect(await dedupe.claim(k, "b")).toBe("claimed"), {
      timeout: 10_000,
      interval: 50,
    });
    await dedupe.complete(k, "a");
    expect(await dedupe.claim(k, "c")).toBe("done");
  });

  it("lets a lease run out by itself (a process killed mid-handler holds nothing)", async () => {
    const dedupe = store({ leaseMs: 200 });
    const k = key();
    expect(await dedupe.claim(k, "killed")).toBe("claimed");
    expect(await dedupe.claim(k, "retry")).toBe("busy");
    await vi.waitFor(async () => expect(await inspect.exists(`reportkit:dedupe:${k}`)).toBe(0), {
      timeout: 10_000,
      interval: 25,
    });
    expect(await dedupe.claim(k, "retry")).toBe("claimed");
  });

  it("gives exactly one of 50 concurrent claims (across 5 connections) the key", async () => {
    const connections = Array.from({ length: 5 }, () => store());
    const k = key();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => connections[i % 5]?.claim(k, `owner-${i}`)),
    );
    expect(results.filter((r) => r === "claimed")).toHaveLength(1);
    expect(results.filter((r) => r === "busy")).toHaveLength(49);
  });

  it("takes 50 claims on a store still connecting, one listener pair however many wait", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const dedupe = store();
      const k = key();
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => dedupe.claim(k, `owner-${i}`)),
      );
      expect(results.filter((r) => r === "claimed")).toHaveLength(1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((w) => w.name)).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("never reads an owner as done, whatever the owner string", async () => {
    const dedupe = store();
    const k = key();
    expect(await dedupe.claim(k, "done")).toBe("claimed");
    expect(await dedupe.claim(k, "other")).toBe("busy");
  });

  it("names a key UTF-8 cannot carry, or a long one, by its hash: bounded, none merged (issue 42, finding 8)", async () => {
    const dedupe = store();
    const tail = randomUUID();
    const long = "k".repeat(3000) + tail;
    for (const k of [`sur\ud800${tail}`, `sur\udbff${tail}`, long]) {
      expect(await dedupe.claim(k, "a")).toBe("claimed");
      await dedupe.complete(k, "a");
      const name = `reportkit:dedupe:${await storedKey(k)}`;
      expect(name).toMatch(/^reportkit:dedupe:key-sha256:[0-9a-f]{64}$/);
      expect(await inspect.get(name)).toBe("done");
    }
    expect(await inspect.exists(`reportkit:dedupe:sur\ufffd${tail}`)).toBe(0);
    // A key with NUL is binary-safe in Redis, but kept by the same one rule as in Postgres.
    expect(await dedupe.claim(`nul\u0000${tail}`, "a")).toBe("claimed");
    await dedupe.release(`nul\u0000${tail}`, "a");
    expect(await dedupe.claim(`nul\u0000${tail}`, "b")).toBe("claimed");
  });

  it("keeps stores with different prefixes apart, and borrows a client without closing it", async () => {
    const client = new Redis(redis.url, { enableOfflineQueue: false, lazyConnect: true });
    await client.connect();
    const borrowed = redisDedupe({ connection: client, prefix: "app2:" });
    const k = key();
    expect(await borrowed.claim(k, "a")).toBe("claimed");
    expect(await inspect.get(`app2:${k}`)).toBe("lease:a");
    expect(await store().claim(k, "b")).toBe("claimed");
    await borrowed.close();
    expect(client.status).toBe("ready");
    await expect(borrowed.claim(key(), "a")).rejects.toThrow(/after close\(\)/);
    client.disconnect();
  });

  it("works again after SCRIPT FLUSH (EVALSHA falls back to EVAL)", async () => {
    const dedupe = store();
    expect(await dedupe.claim(key(), "a")).toBe("claimed");
    await inspect.script("FLUSH");
    const k = key();
    expect(await dedupe.claim(k, "a")).toBe("claimed");
    await dedupe.release(k, "a");
    expect(await dedupe.claim(k, "b")).toBe("claimed");
  });

  it("rejects at once while Redis is down, without the password, and works once it is back", async () => {
    const dedupe = redisDedupe({
      connection: redis.url.replace("redis://", "redis://user:s3cret-pass@"),
      timeoutMs: 500,
    });
    stores.push(dedupe);
    const refused = await Promise.resolve(dedupe.claim(key(), "a")).catch((e: Error) => e);
    expect(String(refused)).toMatch(
      /^StoreError: redisDedupe: claim failed on Redis at redis:\/\/127\.0\.0\.1:\d+ \(/,
    );
    expect(String(refused)).not.toContain("s3cret-pass");
    const k = key();
    // A timeout longer than the test's own: each call below must reject because the connection
    // fails fast (no offline queue), not because the store's timer ran out.
    const working = store({ timeoutMs: 60_000 });
    expect(await working.claim(k, "a")).toBe("claimed");
    await redis.stop();
    try {
      const calls: (() => unknown)[] = [
        () => working.claim(key(), "b"),
        () => working.complete(k, "a"),
        () => working.release(k, "a"),
      ];
      for (const call of calls) {
        const error = await Promise.resolve()
          .then(call)
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        expect(String(error)).toMatch(
          /^StoreError: redisDedupe: \w+ failed on Redis at redis:\/\/127\.0\.0\.1:\d+ \(/,
        );
      }
    } finally {
      await redis.start();
    }
    await vi.waitFor(async () => expect(await working.claim(k, "b")).toBe("claimed"), {
      timeout: 10_000,
      interval: 100,
    });
    await working.complete(k, "b");
    expect(await working.claim(k, "c")).toBe("done");
  });
});

describe("redisDedupe options", () => {
  it.each([
    [{}, /redisDedupe: give `connection`, where Redis is: e\.g\. "redis:\/\/127\.0\.0\.1:6379"/],
    [
      { connection: "localhost:6379" },
      /`connection` must be a redis:\/\/ or rediss:\/\/ \(TLS\) URL, got the scheme "localhost"/,
    ],
    [{ connection: "127.0.0.1:6379" }, /`connection` is not a URL; give it with its scheme/],
    [{ connection: "not a url" }, /`connection` is not a URL/],
    [{ connection: "http://h" }, /got the scheme "http"/],
    [{ connection: 6379 }, /`connection` must be where Redis is, .*; got 6379\./],
    [
      { connection: { url: "redis://h" } },
      /`connection\.url` is no ioredis option: give the URL itself/,
    ],
    [
      { connection: { cluster: [] } },
      /`connection\.cluster` must be a non-empty list of the cluster's nodes/,
    ],
    [
      { connection: { cluster: "redis://h:7000" } },
      /`connection\.cluster` must be a non-empty list/,
    ],
    [
      { connection: { cluster: ["h:7000"] } },
      /`connection\.cluster\[0\]` must start with redis:\/\/ or rediss:\/\//,
    ],
    [
      { connection: { cluster: ["redis://h:1", "http://h:2"] } },
      /`connection\.cluster\[1\]` must start with redis:\/\//,
    ],
    [
      { connection: { cluster: [{ host: "h", port: 0 }] } },
      /`connection\.cluster\[0\]` must be \{ host: string, port: 1-65535 \}/,
    ],
    [
      { connection: { cluster: ["redis://h:1/2"] } },
      /names a database \(\/2\); a Redis Cluster has only database 0/,
    ],
    [
      { connection: { cluster: ["redis://h:1", "rediss://h:2"] } },
      /the `connection\.cluster` URLs differ in scheme, user name or password/,
    ],
    [
      { connection: "redis://h", ttlMs: 0 },
      "redisDedupe: `ttlMs` must be a whole number of milliseconds above 0, got 0.",
    ],
    [{ connection: "redis://h", leaseMs: 1.5 }, /`leaseMs` must be a whole number/],
    [{ connection: "redis://h", timeoutMs: -1 }, /`timeoutMs` must be a whole number/],
    [
      { connection: "redis://h", leaseMs: 10_000, ttlMs: 5_000 },
      /`leaseMs` \(10000\) must not exceed `ttlMs` \(5000\)/,
    ],
    [{ connection: "redis://h", prefix: 3 }, "redisDedupe: `prefix` must be a string, got 3."],
    [
      { connection: "redis://h", journalPrefix: "reportkit:dedupe:" },
      /`journalPrefix` must differ from `prefix`/,
    ],
    [
      { connection: "redis://h", ttl: 5 },
      "redisDedupe: unknown option `ttl`; the options are connection, prefix, ttlMs, leaseMs, timeoutMs, journalPrefix, journalRetentionMs, journalMaxEntries, journalBodies.",
    ],
    [
      "redis://h",
      /redisDedupe: pass an options object, e\.g\. redisDedupe\(\{ connection: "redis:\/\/127\.0\.0\.1:6379" \}\)/,
    ],
  ])("refuses %j at factory time", (options, message) => {
    expect(() => redisDedupe(options as never)).toThrow(message);
  });

  it.each([
    [
      { url: "redis://h" },
      'redisDedupe: `url` was renamed: pass `connection: "redis://…"` (the same URL).',
    ],
    [
      { cluster: ["redis://h:7000"] },
      "redisDedupe: `cluster` was renamed: pass `connection: { cluster: [the same nodes] }`.",
    ],
    [
      { client: {} },
      "redisDedupe: `client` was renamed: pass your ioredis client as `connection` (reportkit never closes it).",
    ],
    // The old key is refused first, whatever else is given: its fix is the one that helps.
    [{ url: "redis://h", connection: "redis://h" }, /`url` was renamed/],
  ])("refuses the old key of %j, saying the fix", (options, message) => {
    expect(() => redisDedupe(options as never)).toThrow(message);
  });

  it("never echoes a password from a cluster's URLs, the connection or an old `url`", () => {
    const messages = [
      { connection: { cluster: ["redis://:s3cret@h:1", "redis://:other@h:2"] } },
      { connection: "http://user:s3cret@h" },
      { url: "redis://user:s3cret@h" },
    ].map((options) => {
      try {
        redisDedupe(options as never);
      } catch (error) {
        return (error as Error).message;
      }
      return "";
    });
    expect(messages[0]).toMatch(/differ in scheme, user name or password/);
    for (const message of messages) {
      expect(message).not.toBe("");
      expect(message).not.toContain("s3cret");
      expect(message).not.toContain("other");
    }
  });
});
