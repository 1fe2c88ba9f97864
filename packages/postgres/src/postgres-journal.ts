// The failure journal in Postgres: reports reportkit could not get processed (a handler that
// failed or timed out, a report refused after authentication), kept with their request so that
// `reportkit replay` can send them again once the cause is fixed. Kept bounded: failed and
// refused entries for `retentionMs` after they were last seen, resolved ones for a day (the
// inbox's `retentionMs`), at most `maxEntries` (the oldest dropped first). Writes go through a
// pool of their own, so a journal entry never waits behind the claims it is about.
import type {
  JournalBodies,
  JournalEntry,
  JournalStatus,
  ReadableJournal,
} from "@reportkit/core/adapter";
import { journalLimits, journalQuery, readOptions } from "@reportkit/core/adapter";
import type { ReportKind } from "@reportkit/wire";
import { listedKey, storedKey } from "@reportkit/wire/internal";
import {
  type Connection,
  type ConnectionOptions,
  connection,
  DEFAULT_TIMEOUT_MS,
} from "./connection.js";
import { staleKindCheck } from "./journal-kind-check.js";
import { withoutNul } from "./pg-text.js";
import {
  DEFAULT_JOURNAL_TABLE,
  journalRelations,
  journalTableSql,
  type TableName,
  tableName,
} from "./schema.js";
import { tableCheck } from "./table-check.js";

export interface PostgresJournalOptions extends ConnectionOptions {
  /** Default "reportkit_journal"; "schema.table" works too. */
  journalTable?: string;
  /**
   * Whether `record` may create the table when it is missing (default true). Reading (`list`,
   * `resolve`) never creates anything: a read-only role can list.
   */
  createTables?: boolean;
  /** How long a failed or refused entry is kept after it was last seen, in ms. Default 14 days. */
  retentionMs?: number;
  /** How many entries are kept at most, the oldest dropped first. Default 100,000. */
  maxEntries?: number;
  /** `"full"` (default: what replay sends) or `"redacted"` (phone numbers never stored). */
  bodies?: JournalBodies;
  /** How long one statement may go unanswered, in ms. Default 2000. */
  timeoutMs?: number;
}

/** How long a resolved entry is kept by a journal of its own (the inbox's keeps its `retentionMs`). */
const RESOLVED_RETENTION_MS = 24 * 60 * 60 * 1000;
/** At most one prune per process in this time: pruning is a background chore, not per report. */
export const PRUNE_EVERY_MS = 10 * 60 * 1000;
/** Rows deleted per statement, so that a backlog never holds a long lock. */
export const PRUNE_BATCH = 5000;
/** How long a prune's statement may take: a background chore, not a report's wait. */
export const CHORE_TIMEOUT_MS = 30_000;
/** Connections of the journal's own pool. */
const JOURNAL_CONNECTIONS = 2;

/**
 * The failure journal on its own: for tools that read it (`reportkit journal list`; they never
 * write, so a read-only role will do), or as a receiver's `journal`. `postgresInbox` has one
 * built in, as `inbox.journal`.
 *
 * @example
 * import { postgresJournal } from "@reportkit/postgres";
 *
 * const journal = postgresJournal({ connectionString: process.env.DATABASE_URL });
 * for (const entry of await journal.list({ status: "failed" })) {
 *   console.log(entry.key, entry.attempts, entry.lastError);
 * }
 * await journal.close();
 */
export function postgresJournal(options: PostgresJournalOptions): ReadableJournal {
  const who = "postgresJournal";
  const read = readOptions(who, options, {
    example: "postgresJournal({ connectionString: process.env.DATABASE_URL })",
    known: [
      "pool",
      "connectionString",
      "journalTable",
      "createTables",
      "retentionMs",
      "maxEntries",
      "bodies",
      "timeoutMs",
    ],
  });
  const table = tableName(who, "journalTable", options.journalTable ?? DEFAULT_JOURNAL_TABLE);
  const timeoutMs = read.positiveMs("timeoutMs", DEFAULT_TIMEOUT_MS);
  const tables = {
    relations: journalRelations(table),
    createSql: () => journalTableSql(table),
    stale: (db: Connection, ms: number) => staleKindCheck(db, table, ms),
  };
  const db = connection(who, options);
  const create = read.flag("createTables", true);
  return journalOn(db, {
    who,
    table,
    timeoutMs,
    ...journalLimits(read, ""),
    resolvedRetentionMs: RESOLVED_RETENTION_MS,
    forWrite: tableCheck(db, tables, create ? "create" : "migrated", timeoutMs),
    forRead: tableCheck(db, tables, "read-only", timeoutMs),
  });
}

/** How a journal on a connection behaves: see `journalOn`. */
export interface JournalSettings {
  /** Names the journal in messages and in the refusals of a `list` filter. */
  readonly who: string;
  readonly table: TableName;
  readonly timeoutMs: number;
  readonly retentionMs: number;
  readonly resolvedRetentionMs: number;
  readonly maxEntries: number;
  readonly bodies: JournalBodies;
  /** Settles once the table is there for a write (created, if the store may). */
  readonly forWrite: () => Promise<void>;
  /** Settles once the table is there for a read; never creates. */
  readonly forRead: () => Promise<void>;
}

/** A journal that its store also prunes (the inbox, with its own keys). */
export interface PrunedJournal extends ReadableJournal {
  /** Deletes entries past retention and past the cap, at most once per PRUNE_EVERY_MS. */
  prune(): Promise<void>;
}

/** The journal on a connection the caller holds (the inbox shares its own with it). */
export function journalOn(db: Connection, settings: JournalSettings): PrunedJournal {
  const { who, timeoutMs, maxEntries } = settings;
  const t = settings.table.sql;
  // Opened on the first write or read, so that a store that never journals opens nothing more.
  let pool: ReturnType<Connection["sidePool"]> | undefined;
  const RECORD = `INSERT INTO ${t} AS j (key, kind, status, method, url, content_type, body,
  body_encoding, first_seen, last_seen, attempts, last_error)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, 1, $10)
ON CONFLICT (key) DO UPDATE SET kind = EXCLUDED.kind, status = EXCLUDED.status,
  method = EXCLUDED.method, url = EXCLUDED.url, content_type = EXCLUDED.content_type,
  body = EXCLUDED.body, body_encoding = EXCLUDED.body_encoding,
  last_seen = GREATEST(j.last_seen, EXCLUDED.last_seen), attempts = j.attempts + 1,
  last_error = EXCLUDED.last_error`;
  const RESOLVE = `UPDATE ${t} SET status = 'resolved' WHERE key = $1`;
  const LIST = `SELECT * FROM ${t} WHERE ($1::text[] IS NULL OR status = ANY($1))
  AND ($2::text[] IS NULL OR kind = ANY($2))
  AND ($3::timestamptz IS NULL OR last_seen >= $3) ORDER BY last_seen, key LIMIT $4`;
  const EXPIRED = `DELETE FROM ${t} WHERE key IN (SELECT key FROM ${t}
  WHERE last_seen < now() - (CASE WHEN status = 'resolved' THEN $1::bigint ELSE $2::bigint END) * interval '1 millisecond'
  LIMIT ${PRUNE_BATCH})`;
  const OVER_CAP = `DELETE FROM ${t} WHERE key IN (SELECT key FROM ${t}
  ORDER BY last_seen DESC, key DESC OFFSET $1::bigint LIMIT ${PRUNE_BATCH})`;
  // The cap is checked every `trimEvery` entries this process keeps (and at each prune): at most
  // 1% (or 100 entries) past it per process in between.
  const trimEvery = Math.min(100, Math.max(1, Math.floor(maxEntries / 100)));
  let sinceTrim = 0;
  let lastPrune = 0;

  const query = (what: string, text: string, values: readonly unknown[], ms = timeoutMs) => {
    pool ??= db.sidePool(JOURNAL_CONNECTIONS);
    return db.query(what, text, values, ms, pool);
  };

  async function trim(): Promise<void> {
    for (;;) {
      const { rowCount } = await query(
        "trimming the journal",
        OVER_CAP,
        [maxEntries],
        CHORE_TIMEOUT_MS,
      );
      if ((rowCount ?? 0) < PRUNE_BATCH) return;
    }
  }

  async function prune(): Promise<void> {
    const now = Date.now();
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    await settings.forRead();
    for (;;) {
      const { rowCount } = await query(
        "pruning the journal",
        EXPIRED,
        [settings.resolvedRetentionMs, settings.retentionMs],
        CHORE_TIMEOUT_MS,
      );
      if ((rowCount ?? 0) < PRUNE_BATCH) break;
    }
    await trim();
  }

  /** A chore after a write, in the background: a missed one is done at the next. */
  function chores(): void {
    sinceTrim += 1;
    let chore = Promise.resolve();
    if (sinceTrim >= trimEvery) {
      sinceTrim = 0;
      chore = trim();
    }
    chore.then(prune).catch(() => {});
  }

  return {
    bodies: settings.bodies,
    async record(entry) {
      await settings.forWrite();
      const { request } = entry;
      // Text cannot hold NUL: such a body is kept as its UTF-8 bytes, in base64.
      const nul = request.bodyEncoding === "utf8" && request.body.includes("\0");
      await query("keeping a report in the journal", RECORD, [
        await storedKey(entry.key),
        entry.kind,
        entry.status,
        withoutNul(request.method),
        withoutNul(request.url),
        request.contentType === null ? null : withoutNul(request.contentType),
        nul ? Buffer.from(request.body, "utf8").toString("base64") : request.body,
        nul ? "base64" : request.bodyEncoding,
        entry.at,
        withoutNul(`${entry.error.code}: ${entry.error.message}`),
      ]);
      chores();
    },
    async ping() {
      await query("ping", "SELECT 1", []);
    },
    async list(filter) {
      const { statuses, kinds, since, limit } = journalQuery(`${who}.list`, filter);
      await settings.forRead();
      const { rows } = await query("listing the journal", LIST, [
        statuses ?? null,
        kinds ?? null,
        since ?? null,
        limit,
      ]);
      return rows.map(entryOf);
    },
    async resolve(key) {
      await settings.forRead();
      const { rowCount } = await query("resolving a journal entry", RESOLVE, [
        await listedKey(key),
      ]);
      return rowCount === 1;
    },
    prune,
    close: () => db.end(),
  };
}

interface JournalRow {
  key: string;
  kind: ReportKind | null;
  status: JournalStatus;
  method: string;
  url: string;
  content_type: string | null;
  body: string;
  body_encoding: "utf8" | "base64";
  first_seen: Date;
  last_seen: Date;
  attempts: number;
  last_error: string;
}

function entryOf(row: JournalRow): JournalEntry {
  return {
    key: row.key,
    kind: row.kind,
    status: row.status,
    request: {
      method: row.method,
      url: row.url,
      contentType: row.content_type,
      body: row.body,
      bodyEncoding: row.body_encoding,
    },
    firstSeen: row.first_seen,
    lastSeen: row.last_seen,
    attempts: row.attempts,
    lastError: row.last_error,
  };
}
