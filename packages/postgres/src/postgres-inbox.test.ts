// postgresInbox's options, checked when it is created (no server needed), and its messages:
// they say what was wrong and how to fix it, and never carry a password.
import { describe, expect, it } from "vitest";
import { postgresInbox } from "./postgres-inbox.js";
import { postgresInboxSql } from "./schema.js";

describe("postgresInbox options", () => {
  it("refuses unknown options, both or neither of pool and connectionString, and other schemes", () => {
    const url = "postgres://127.0.0.1/app";
    expect(() => postgresInbox({ connectionString: url, ttlMs: 5 } as never)).toThrow(
      "postgresInbox: unknown option `ttlMs`; the options are pool, connectionString, table, journalTable, createTables, retentionMs, lockTimeoutMs, leaseMs, timeoutMs, journalRetentionMs, journalMaxEntries, journalBodies.",
    );
    expect(() => postgresInbox({})).toThrow(
      "postgresInbox: give `connectionString` (e.g. 'postgres://user:password@127.0.0.1:5432/app') or `pool` (a pg.Pool).",
    );
    expect(() => postgresInbox({ connectionString: url, pool: {} as never })).toThrow(
      "postgresInbox: give `pool` or `connectionString`, not both",
    );
    expect(() => postgresInbox({ connectionString: "mysql://127.0.0.1/app" })).toThrow(
      "postgresInbox: `connectionString` must start with postgres:// or postgresql://, got the scheme mysql:",
    );
    expect(() => postgresInbox({ pool: { query: () => {} } as never })).toThrow(
      "postgresInbox: `pool` must be a pg.Pool",
    );
  });

  it("takes table names as identifiers only, schema-qualified or not", () => {
    for (const table of ['x"; DROP TABLE users; --', "1abc", "a.b.c", "", "with space"]) {
      expect(() => postgresInbox({ connectionString: "postgres://h/db", table })).toThrow(
        /^postgresInbox: `table` must be a table name, "name" or "schema.name"/,
      );
    }
    const sql = postgresInboxSql({ table: "app.inbox", journalTable: "failures" });
    expect(sql).toContain('CREATE TABLE IF NOT EXISTS "app"."inbox" (');
    expect(sql).toContain('CREATE INDEX IF NOT EXISTS "inbox_processed_at_idx" ON "app"."inbox"');
    expect(sql).toContain('CREATE TABLE IF NOT EXISTS "failures" (');
  });

  it("takes whole positive milliseconds, with defaults of 24 h, 5 s, 60 s and 2 s", () => {
    const inbox = postgresInbox({ connectionString: "postgres://h/db" });
    expect([inbox.retentionMs, inbox.lockTimeoutMs, inbox.leaseMs, inbox.timeoutMs]).toEqual([
      86_400_000, 5000, 60_000, 2000,
    ]);
    expect(inbox.name).toBe("postgres");
    for (const bad of [0, -1, 1.5, Number.NaN, "5"]) {
      expect(() =>
        postgresInbox({ connectionString: "postgres://h/db", lockTimeoutMs: bad as never }),
      ).toThrow(
        `postgresInbox: \`lockTimeoutMs\` must be a whole number of milliseconds above 0, got ${typeof bad === "string" ? `"${bad}"` : String(bad)}.`,
      );
    }
    return inbox.close();
  });

  it("refuses journal settings and createTables it cannot read", () => {
    const url = "postgres://h/db";
    expect(() => postgresInbox({ connectionString: url, createTables: "no" as never })).toThrow(
      'postgresInbox: `createTables` must be true or false, got "no".',
    );
    expect(() => postgresInbox({ connectionString: url, journalBodies: "none" as never })).toThrow(
      'postgresInbox: `journalBodies` must be "full" or "redacted", got "none".',
    );
    expect(() => postgresInbox({ connectionString: url, journalMaxEntries: 0 })).toThrow(
      "postgresInbox: `journalMaxEntries` must be a whole number above 0, got 0.",
    );
  });

  it("says where Postgres could not be reached, without the password", async () => {
    const inbox = postgresInbox({ connectionString: "postgres://app:s3cret-pw@127.0.0.1:1/app" });
    try {
      const claim = inbox.claim("k", "owner");
      await expect(claim).rejects.toThrow(
        /^postgresInbox: checking the tables failed on Postgres at 127\.0\.0\.1:1 \(.*ECONNREFUSED/,
      );
      await claim.catch((error: Error) => expect(error.message).not.toContain("s3cret-pw"));
      await expect(inbox.ping()).rejects.toThrow(
        /^postgresInbox: ping failed on Postgres at 127\.0\.0\.1:1 /,
      );
    } finally {
      await inbox.close();
    }
    await expect(inbox.claim("k", "owner")).rejects.toThrow(
      "postgresInbox: claim after close(); the store is closed.",
    );
  });
});
