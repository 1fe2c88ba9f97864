// The transactional inbox: each report is processed inside one Postgres transaction that also
// holds its dedupe mark, and the handler writes through that transaction (`ctx.tx`), so the
// handler's writes and the mark commit together or not at all.
import {
  type ClaimResult,
  DEFAULT_LEASE_MS,
  type DedupeStore,
  type ReadableJournal,
  readOptions,
} from "@reportkit/core/adapter";
import type pg from "pg";
import { type ConnectionOptions, connection, releaseClient } from "./connection.js";
import { journalOn } from "./postgres-journal.js";
import {
  DEFAULT_INBOX_TABLE,
  DEFAULT_JOURNAL_TABLE,
  inboxTableSql,
  journalTableSql,
  tableName,
} from "./schema.js";

/** What a report's handler gets on `ctx` with a Postgres inbox. */
export interface PostgresScope {
  /**
   * The report's transaction: every write made through it commits with the report's dedupe
   * mark once the handler succeeded, or is rolled back with it when the handler fails. Do not
   * COMMIT, ROLLBACK or release it yourself.
   */
  tx: pg.PoolClient;
}

export interface PostgresInboxOptions extends ConnectionOptions {
  /** The inbox table (one row per processed report). Default "reportkit_inbox". */
  table?: string;
  /** The failure journal's table. Default "reportkit_journal". */
  journalTable?: string;
  /**
   * How long a processed report's key is kept, in ms. Default 24 h: well past the provider's
   * whole retry window (3 retries 30 min apart: 90 min). Older keys are pruned by the store.
   */
  retentionMs?: number;
  /**
   * How long a copy of a report waits for the attempt already processing it, in ms: if that
   * one commits meanwhile the copy gets the duplicate reply, else 409 `in_progress` with
   * Retry-After. Default 5000.
   */
  lockTimeoutMs?: number;
  /**
   * How long a report's transaction may sit idle (its handler awaiting something other than
   * the database) before Postgres ends it and rolls it back, in ms. Default 60 s.
   */
  leaseMs?: number;
}

/** A `DedupeStore` whose claims are transactions, with a failure journal in the same database. */
export interface PostgresInbox extends DedupeStore<PostgresScope> {
  readonly name: "postgres";
  readonly leaseMs: number;
  readonly retentionMs: number;
  readonly lockTimeoutMs: number;
  readonly journal: ReadableJournal;
  claim(key: string, owner: string): Promise<ClaimResult>;
  complete(key: string, owner: string): Promise<void>;
  release(key: string, owner: string): Promise<void>;
  scope(owner: string): PostgresScope;
  ping(): Promise<void>;
  /** Ends the pool the store opened from `connectionString` (a borrowed pool stays open). */
  close(): Promise<void>;
}

export const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_LOCK_TIMEOUT_MS = 5000;
/** At most one prune per process in this time: pruning is a background chore, not per report. */
const PRUNE_EVERY_MS = 10 * 60 * 1000;
/** Keys deleted per statement, so that a backlog never holds a long lock. */
const PRUNE_BATCH = 5000;

/**
 * A transactional inbox in Postgres: pass it as the receiver's (or an adapter's) `dedupe`, and
 * each report's handler runs inside a transaction that also holds the report's key, given to
 * the handler as `ctx.tx`. Handler writes through `ctx.tx` and the key commit together, so a
 * report is recorded exactly once even if the process dies at any point. Reports that could
 * not be processed are kept in the failure journal (`reportkit journal list`, `reportkit
 * replay`). Both tables are created on first use.
 *
 * @example
 * import { createReceiver } from "@reportkit/core";
 * import { postgresInbox } from "@reportkit/postgres";
 *
 * const receiver = createReceiver({
 *   secret: process.env.REPORTKIT_SECRET,
 *   dedupe: postgresInbox({ connectionString: process.env.DATABASE_URL }),
 *   onDelivery: async (report, ctx) => {
 *     await ctx.tx.query("UPDATE messages SET status = $1 WHERE id = $2", [
 *       report.status,
 *       report.id,
 *     ]);
 *   },
 * });
 */
export function postgresInbox(options: PostgresInboxOptions): PostgresInbox {
  const who = "postgresInbox";
  const read = readOptions(who, options, {
    example: "postgresInbox({ connectionString: process.env.DATABASE_URL })",
    known: [
      "pool",
      "connectionString",
      "table",
      "journalTable",
      "retentionMs",
      "lockTimeoutMs",
      "leaseMs",
    ],
  });
  const inbox = tableName(who, "table", options.table ?? DEFAULT_INBOX_TABLE);
  const journalTable = tableName(
    who,
    "journalTable",
    options.journalTable ?? DEFAULT_JOURNAL_TABLE,
  );
  const retentionMs = read.positiveMs("retentionMs", DEFAULT_RETENTION_MS);
  const lockTimeoutMs = read.positiveMs("lockTimeoutMs", DEFAULT_LOCK_TIMEOUT_MS);
  const leaseMs = read.positiveMs("leaseMs", DEFAULT_LEASE_MS);
  const db = connection(who, options, () => inboxTableSql(inbox) + journalTableSql(journalTable));
  const journal = journalOn(db, journalTable, `${who}.journal`);
  // Each claimed report's open transaction, until `complete` commits or `release` rolls back.
  const held = new Map<string, pg.PoolClient>();
  let closed = false;
  let lastPrune = 0;

  // BEGIN and the claim in one round trip (a simple query of several statements; the key as an
  // escaped literal, since such a query takes no parameters). The transaction's own settings:
  // the lock wait bounded for the key's insert only (the session's lock_timeout, kept aside
  // first, is restored by the insert itself, so the handler's statements keep it), and a
  // transaction left idle for longer than the lease ended by the server. Inserting the key
  // waits while another transaction holds an uncommitted insert of it: then no row (it
  // committed: done), a row (it rolled back: ours), or lock_not_available (busy).
  const SETTINGS = `BEGIN; SELECT set_config('reportkit.lock_timeout', current_setting('lock_timeout'), true); SELECT set_config('lock_timeout', '${lockTimeoutMs}ms', true), set_config('idle_in_transaction_session_timeout', '${leaseMs}ms', true); INSERT INTO ${inbox.sql} (key) VALUES (`;
  const CLAIMED = `) ON CONFLICT (key) DO NOTHING RETURNING set_config('lock_timeout', current_setting('reportkit.lock_timeout'), true)`;
  const PRUNE_INBOX = `DELETE FROM ${inbox.sql} WHERE key IN (SELECT key FROM ${inbox.sql}
  WHERE processed_at < now() - $1 * interval '1 millisecond' LIMIT ${PRUNE_BATCH})`;
  const PRUNE_JOURNAL = `DELETE FROM ${journalTable.sql} WHERE status = 'resolved'
  AND last_seen < now() - $1 * interval '1 millisecond'`;

  function take(owner: string, what: string): pg.PoolClient {
    const entry = held.get(owner);
    if (entry === undefined) {
      throw new Error(`postgresInbox: ${what} for an attempt that holds no claim (${owner}).`);
    }
    held.delete(owner);
    return entry;
  }

  /** Deletes keys past retention, at most once per PRUNE_EVERY_MS per process, in the background. */
  function prune(): void {
    const now = Date.now();
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    (async () => {
      for (;;) {
        const { rowCount } = await db.pool.query(PRUNE_INBOX, [retentionMs]);
        if ((rowCount ?? 0) < PRUNE_BATCH || closed) break;
      }
      await db.pool.query(PRUNE_JOURNAL, [retentionMs]);
    })().catch(() => {
      // Tried again at the next interval; a missed prune only keeps keys a little longer.
    });
  }

  return {
    name: "postgres",
    leaseMs,
    retentionMs,
    lockTimeoutMs,
    journal,

    async claim(key: string, owner: string): Promise<ClaimResult> {
      if (closed) throw new Error("postgresInbox: claim after close(); the store is closed.");
      await db.ready();
      let client: pg.PoolClient;
      try {
        client = await db.connect();
      } catch (error) {
        throw db.failure("claim", error);
      }
      try {
        const results = (await client.query(
          SETTINGS + client.escapeLiteral(key) + CLAIMED,
        )) as unknown as pg.QueryResult[];
        if (results[3]?.rowCount === 1) {
          held.set(owner, client);
          return "claimed";
        }
        await client.query("ROLLBACK");
        releaseClient(client);
        return "done";
      } catch (error) {
        if ((error as { code?: string }).code === "55P03") {
          // lock_not_available: another attempt still holds the key after lockTimeoutMs.
          try {
            await client.query("ROLLBACK");
            releaseClient(client);
          } catch (rollback) {
            releaseClient(client, rollback);
          }
          return "busy";
        }
        releaseClient(client, error);
        throw db.failure("claim", error);
      }
    },

    scope(owner: string): PostgresScope {
      const entry = held.get(owner);
      if (entry === undefined) {
        throw new Error(`postgresInbox: scope for an attempt that holds no claim (${owner}).`);
      }
      return { tx: entry };
    },

    async complete(key: string, owner: string): Promise<void> {
      const client = take(owner, "complete");
      try {
        // A journal entry of this report (an earlier attempt failed) is resolved in the same
        // commit: one round trip, the key as an escaped literal (no parameters in a
        // two-statement query).
        const results = (await client.query(
          `UPDATE ${journalTable.sql} SET status = 'resolved' WHERE key = ${client.escapeLiteral(key)} AND status <> 'resolved'; COMMIT`,
        )) as unknown as pg.QueryResult[];
        const committed = results[1] as pg.QueryResult;
        // A statement that failed inside the transaction (caught by the handler) aborted it:
        // Postgres then answers COMMIT with a rollback, and nothing was recorded.
        if (committed.command === "ROLLBACK") {
          throw new Error(
            "the transaction had been aborted by a failed statement on ctx.tx, so COMMIT rolled it back",
          );
        }
      } catch (error) {
        releaseClient(client, error);
        throw db.failure("commit", error);
      }
      releaseClient(client);
      prune();
    },

    async release(_key: string, owner: string): Promise<void> {
      const client = take(owner, "release");
      try {
        await client.query("ROLLBACK");
      } catch (error) {
        // The connection is gone or broken: its transaction is rolled back by the server.
        releaseClient(client, error);
        return;
      }
      releaseClient(client);
    },

    async ping(): Promise<void> {
      try {
        await db.pool.query("SELECT 1");
      } catch (error) {
        throw db.failure("ping", error);
      }
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await db.end();
    },
  };
}
