// The transactional inbox: each report is processed inside one Postgres transaction that also
// holds its dedupe mark, and the handler writes through that transaction (`ctx.tx`), so the
// handler's writes and the mark commit together or not at all.
import {
  type ClaimResult,
  DEFAULT_LEASE_MS,
  type DedupeStore,
  type JournalBodies,
  journalLimits,
  type ReadableJournal,
  readOptions,
} from "@reportkit/core/adapter";
import { storedKey } from "@reportkit/wire/internal";
import type pg from "pg";
import {
  answered,
  type ConnectionOptions,
  connection,
  DEFAULT_TIMEOUT_MS,
  releaseClient,
} from "./connection.js";
import { claimTracker } from "./inbox-claims.js";
import { LEDGER_COLUMNS } from "./ledger-schema.js";
import { CHORE_TIMEOUT_MS, journalOn, PRUNE_BATCH, PRUNE_EVERY_MS } from "./postgres-journal.js";
import {
  DEFAULT_INBOX_TABLE,
  DEFAULT_JOURNAL_TABLE,
  inboxRelations,
  inboxTableSql,
  journalRelations,
  journalTableSql,
  tableName,
} from "./schema.js";
import { tableCheck } from "./table-check.js";

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
   * Whether the store creates its tables when they are missing (default true). It looks them up
   * in the catalog first, without a lock, and creates only what is missing. `false` for a
   * schema your migrations own (the SQL of `postgresInboxSql()`): then it never runs DDL, and
   * a missing table is a 503 whose message says so.
   */
  createTables?: boolean;
  /**
   * How long a processed report's key is kept, in ms. Default 24 h: well past the provider's
   * whole retry window (3 retries 30 min apart: 90 min). Older keys are pruned by the store,
   * and resolved journal entries with them.
   */
  retentionMs?: number;
  /**
   * How long a copy of a report waits for the attempt already processing it, in ms: if that
   * one commits meanwhile the copy gets the duplicate reply, else 409 `in_progress` with
   * Retry-After. Default 5000.
   */
  lockTimeoutMs?: number;
  /**
   * How long a report's transaction may last idle (its handler awaiting something other than
   * the database), and each of its statements, before Postgres ends it and rolls it back, in
   * ms. Default 60 s. Its connection is then closed, never reused.
   */
  leaseMs?: number;
  /**
   * How long the store waits for Postgres in one step (each statement it makes; a claim waits
   * `lockTimeoutMs` more for a copy's key) before Postgres counts as unreachable and the
   * receiver answers 503, in ms. Default 2000. The connection is then closed.
   */
  timeoutMs?: number;
  /** How long a failed or refused journal entry is kept after it was last seen, in ms. Default 14 days. */
  journalRetentionMs?: number;
  /** How many journal entries are kept at most, the oldest dropped first. Default 100,000. */
  journalMaxEntries?: number;
  /** What the journal keeps of a body: "full" (default; replayable) or "redacted" (no phone numbers). */
  journalBodies?: JournalBodies;
}

/** A `DedupeStore` whose claims are transactions, with a failure journal in the same database. */
export interface PostgresInbox extends DedupeStore<PostgresScope> {
  readonly name: "postgres";
  readonly leaseMs: number;
  readonly retentionMs: number;
  readonly lockTimeoutMs: number;
  readonly timeoutMs: number;
  readonly journal: ReadableJournal;
  claim(key: string, owner: string): Promise<ClaimResult>;
  complete(key: string, owner: string): Promise<void>;
  release(key: string, owner: string): Promise<void>;
  scope(owner: string): PostgresScope;
  ping(): Promise<void>;
  /**
   * Ends the pool the store opened from `connectionString` (a borrowed pool stays open), and the
   * journal's own connections; a report's transaction still open is rolled back.
   */
  close(): Promise<void>;
}

export const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_LOCK_TIMEOUT_MS = 5000;

/**
 * A transactional inbox in Postgres: pass it as the receiver's (or an adapter's) `dedupe`, and
 * each report's handler runs inside a transaction that also holds the report's key, given to
 * the handler as `ctx.tx`. Handler writes through `ctx.tx` and the key commit together, so a
 * report is recorded exactly once even if the process dies at any point. Reports that could
 * not be processed are kept in the failure journal (`reportkit journal list`, `reportkit
 * replay`). Both tables are created on first use when missing (`createTables: false` for a
 * migrated schema).
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
      "createTables",
      "retentionMs",
      "lockTimeoutMs",
      "leaseMs",
      "timeoutMs",
      "journalRetentionMs",
      "journalMaxEntries",
      "journalBodies",
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
  const timeoutMs = read.positiveMs("timeoutMs", DEFAULT_TIMEOUT_MS);
  const db = connection(who, options);
  const ensure = tableCheck(
    db,
    {
      relations: [...inboxRelations(inbox), ...journalRelations(journalTable)],
      columns: LEDGER_COLUMNS,
      createSql: () => inboxTableSql(inbox) + journalTableSql(journalTable),
    },
    read.flag("createTables", true) ? "create" : "migrated",
    timeoutMs,
  );
  const journal = journalOn(db, {
    who: `${who}.journal`,
    table: journalTable,
    timeoutMs,
    ...journalLimits(read, "journal"),
    resolvedRetentionMs: retentionMs,
    forWrite: ensure,
    forRead: ensure,
  });
  const claims = claimTracker(db, leaseMs, timeoutMs);
  let closed = false;
  let lastPrune = 0;

  // BEGIN and the claim in one round trip (a simple query of several statements; the key as an
  // escaped literal, since such a query takes no parameters). The transaction's own settings:
  // the lock wait bounded for the key's insert only (the session's lock_timeout, kept aside
  // first, is restored by the insert itself, so the handler's statements keep it); a statement,
  // and the transaction left idle, each ended by the server past the lease (a session's shorter
  // statement_timeout is kept). Inserting the key waits while another transaction holds an
  // uncommitted insert of it: then no row (it committed: done), a row (it rolled back: ours),
  // or lock_not_available (busy).
  const lease = `interval '${leaseMs} milliseconds'`;
  const SETTINGS = `BEGIN; SELECT set_config('reportkit.lock_timeout', current_setting('lock_timeout'), true); SELECT set_config('lock_timeout', '${lockTimeoutMs}ms', true), set_config('idle_in_transaction_session_timeout', '${leaseMs}ms', true), set_config('statement_timeout', CASE WHEN current_setting('statement_timeout')::interval = interval '0' OR current_setting('statement_timeout')::interval > ${lease} THEN '${leaseMs}ms' ELSE current_setting('statement_timeout') END, true); INSERT INTO ${inbox.sql} (key) VALUES (`;
  const CLAIMED = `) ON CONFLICT (key) DO NOTHING RETURNING set_config('lock_timeout', current_setting('reportkit.lock_timeout'), true)`;
  const PRUNE_INBOX = `DELETE FROM ${inbox.sql} WHERE key IN (SELECT key FROM ${inbox.sql}
  WHERE processed_at < now() - $1 * interval '1 millisecond' LIMIT ${PRUNE_BATCH})`;

  /** Deletes keys past retention, at most once per PRUNE_EVERY_MS per process, in the background. */
  function prune(): void {
    const now = Date.now();
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    (async () => {
      for (;;) {
        const { rowCount } = await db.query(
          "pruning",
          PRUNE_INBOX,
          [retentionMs],
          CHORE_TIMEOUT_MS,
        );
        if ((rowCount ?? 0) < PRUNE_BATCH || closed) break;
      }
      await journal.prune();
    })().catch(() => {
      // Tried again at the next interval; a missed prune only keeps keys a little longer.
    });
  }

  /** ROLLBACK, and the connection back to the pool (destroyed if that failed). */
  async function rollBack(client: pg.PoolClient): Promise<void> {
    try {
      await answered(client, client.query("ROLLBACK"), timeoutMs);
      releaseClient(client);
    } catch (error) {
      // The connection is gone or broken: its transaction is rolled back by the server.
      releaseClient(client, error);
    }
  }

  return {
    name: "postgres",
    leaseMs,
    retentionMs,
    lockTimeoutMs,
    timeoutMs,
    journal,

    async claim(key: string, owner: string): Promise<ClaimResult> {
      if (closed) throw new Error("postgresInbox: claim after close(); the store is closed.");
      await ensure();
      const stored = await storedKey(key);
      let client: pg.PoolClient;
      try {
        client = await db.connect();
      } catch (error) {
        throw db.failure("claim", error);
      }
      try {
        const claim = client.query(SETTINGS + client.escapeLiteral(stored) + CLAIMED);
        const results = (await answered(
          client,
          claim,
          lockTimeoutMs + timeoutMs,
        )) as unknown as pg.QueryResult[];
        if (results[3]?.rowCount === 1) {
          claims.hold(owner, key, client);
          return "claimed";
        }
        await answered(client, client.query("ROLLBACK"), timeoutMs);
        releaseClient(client);
        return "done";
      } catch (error) {
        if ((error as { code?: string }).code === "55P03") {
          // lock_not_available: another attempt still holds the key after lockTimeoutMs.
          await rollBack(client);
          return "busy";
        }
        releaseClient(client, error);
        throw db.failure("claim", error);
      }
    },

    scope(owner: string): PostgresScope {
      return { tx: claims.tx(owner) };
    },

    async complete(key: string, owner: string): Promise<void> {
      const stored = await storedKey(key);
      const { client, ended } = claims.take(owner, "completed");
      if (ended !== undefined) {
        throw db.failure("commit", new Error(`the report's transaction was ended: ${ended}`));
      }
      try {
        // A journal entry of this report (an earlier attempt failed) is resolved in the same
        // commit: one round trip, the key as an escaped literal (no parameters in a
        // two-statement query).
        const commit = client.query(
          `UPDATE ${journalTable.sql} SET status = 'resolved' WHERE key = ${client.escapeLiteral(stored)} AND status <> 'resolved'; COMMIT`,
        );
        const results = (await answered(client, commit, timeoutMs)) as unknown as pg.QueryResult[];
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
      const { client, ended } = claims.take(owner, "released");
      if (ended === undefined) await rollBack(client);
    },

    async ping(): Promise<void> {
      await db.query("ping", "SELECT 1", [], timeoutMs);
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      claims.endAll("the store was closed");
      await db.end();
    },
  };
}
