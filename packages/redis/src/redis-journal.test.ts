// redisJournal on its own, against a real redis-server: its options (the old connection keys
// refused with their fix), its `list` filter checked, and a journal it cannot reach. What it
// keeps and lists for a receiver: test/journal/redis-journal.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type RedisServer,
  requireRedisServer,
  startRedisServer,
} from "../../../test/support/redis-server.js";
import { redisJournal } from "./redis-journal.js";

describe("redisJournal options", () => {
  it.each([
    [
      { url: "redis://h" },
      'redisJournal: `url` was renamed: pass `connection: "redis://…"` (the same URL).',
    ],
    [
      { client: {} },
      "redisJournal: `client` was renamed: pass your ioredis client as `connection`",
    ],
    [
      { connection: "redis://h", timeoutMs: 0 },
      "redisJournal: `timeoutMs` must be a whole number of milliseconds above 0, got 0.",
    ],
    [{ connection: "redis://h", prefix: 1 }, "redisJournal: `prefix` must be a string, got 1."],
    [
      { connection: "redis://h", limit: 5 },
      "redisJournal: unknown option `limit`; the options are connection, prefix, timeoutMs, retentionMs, maxEntries, bodies.",
    ],
    [{}, "redisJournal: give `connection`, where Redis is"],
  ])("refuses %j, saying the fix", (options, message) => {
    expect(() => redisJournal(options as never)).toThrow(message);
  });
});

describe.runIf(requireRedisServer("redis-journal.test.ts"))("redisJournal on a real Redis", () => {
  let redis: RedisServer;

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.close();
  });

  it("lists nothing from an empty journal, refuses a filter it cannot read, and is closed after close()", async () => {
    const journal = redisJournal({ connection: redis.url, prefix: "empty:" });
    expect(await journal.list({ status: ["failed", "refused"] })).toEqual([]);
    await expect(journal.list({ status: "lost" as never })).rejects.toThrow(
      'redisJournal.list: `status` must be failed, refused, resolved or a list of them, got "lost".',
    );
    await journal.close();
    await expect(journal.list()).rejects.toThrow(
      "redisJournal: listing the journal after close(); the journal is closed.",
    );
  });

  it("says what failed where when it cannot reach Redis, never the password", async () => {
    const journal = redisJournal({ connection: "redis://app:s3cret@127.0.0.1:9" });
    try {
      await expect(journal.list()).rejects.toThrow(
        "redisJournal: listing the journal failed on Redis at redis://127.0.0.1:9 (connect ECONNREFUSED 127.0.0.1:9).",
      );
    } finally {
      await journal.close();
    }
  });
});
