// The failure journal in Postgres: reports reportkit could not get processed (a handler that
// failed or timed out, a report refused after authentication), kept with their request so that
// `reportkit replay` can send them again once the cause is fixed.
import type { JournalEntry, JournalStatus, ReadableJournal } from "@reportkit/core/adapter";
import { journalQuery, readOptions } from "@reportkit/core/adapter";
import type pg from "pg";
import { type Connection, type ConnectionOptions, connection } from "./connection.js";
import { DEFAULT_JOURNAL_TABLE, journalTableSql, type TableName, tableName } from "./schema.js";

export interface PostgresJournalOptions extends ConnectionOptions {
  /** Default "reportkit_journal"; "schema.table" works too. */
  journalTable?: string;
}

/**
 * The failure journal on its own, for tools that read it (`postgresInbox` has one built in,
 * as `inbox.journal`).
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
  readOptions(who, options, {
    example: "postgresJournal({ connectionString: process.env.DATABASE_URL })",
    known: ["pool", "connectionString", "journalTable"],
  });
  const table = tableName(who, "journalTable", options.journalTable ?? DEFAULT_JOURNAL_TABLE);
  const db = connection(who, options, () => journalTableSql(table));
  return journalOn(db, table, who);
}

/**
 * The journal on a connection the caller holds (the inbox shares its own with it); `who`
 * names it in the refusals of a `list` filter.
 */
export function journalOn(db: Connection, table: TableName, who: string): ReadableJournal {
  const t = table.sql;
  const RECORD = `INSERT INTO ${t} AS j (key, kind, status, method, url, content_type, body,
  body_encoding, first_seen, last_seen, attempts, last_error)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, 1, $10)
ON CONFLICT (key) DO UPDATE SET kind = EXCLUDED.kind, status = EXCLUDED.status,
  method = EXCLUDED.method, url = EXCLUDED.url, content_type = EXCLUDED.content_type,
  body = EXCLUDED.body, body_encoding = EXCLUDED.body_encoding,
  last_seen = GREATEST(j.last_seen, EXCLUDED.last_seen), attempts = j.attempts + 1,
  last_error = EXCLUDED.last_error`;
  const RESOLVE = `UPDATE ${t} SET status = 'resolved' WHERE key = $1`;

  async function query(what: string, text: string, values: unknown[]): Promise<pg.QueryResult> {
    await db.ready();
    try {
      return await db.pool.query(text, values);
    } catch (error) {
      throw db.failure(what, error);
    }
  }

  return {
    async record(entry) {
      const { request } = entry;
      await query("keeping a report in the journal", RECORD, [
        entry.key,
        entry.kind,
        entry.status,
        request.method,
        request.url,
        request.contentType,
        request.body,
        request.bodyEncoding,
        entry.at,
        `${entry.error.code}: ${entry.error.message}`,
      ]);
    },
    async ping() {
      await query("ping", "SELECT 1", []);
    },
    async list(filter) {
      const { statuses, since, limit } = journalQuery(`${who}.list`, filter);
      const { rows } = await query(
        "listing the journal",
        `SELECT * FROM ${t} WHERE ($1::text[] IS NULL OR status = ANY($1))
  AND ($2::timestamptz IS NULL OR last_seen >= $2) ORDER BY last_seen, key LIMIT $3`,
        [statuses ?? null, since ?? null, limit],
      );
      return rows.map(entryOf);
    },
    async resolve(key) {
      const { rowCount } = await query("resolving a journal entry", RESOLVE, [key]);
      return rowCount === 1;
    },
    close: () => db.end(),
  };
}

interface JournalRow {
  key: string;
  kind: "delivery" | "call" | null;
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
