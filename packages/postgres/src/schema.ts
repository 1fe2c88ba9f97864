// The inbox's and the journal's tables, and recordStatus's two: their SQL (created on first
// use unless `createTables: false`, and exported for migration tools), the names they may have,
// and the relations whose existence the store checks first.
import { DELIVERY_OUTCOMES } from "@reportkit/core";
import { LEDGER_RELATIONS, ledgerSql } from "./ledger-schema.js";
import { MESSAGE_STATUS_TABLE, STATUS_HISTORY_TABLE } from "./table-names.js";

export const DEFAULT_INBOX_TABLE = "reportkit_inbox";
export const DEFAULT_JOURNAL_TABLE = "reportkit_journal";
export {
  CALLS_TABLE,
  MESSAGE_STATUS_TABLE,
  OPT_OUTS_TABLE,
  STATUS_HISTORY_TABLE,
} from "./table-names.js";

/** A table name as SQL: each part quoted, so a name is never read as SQL. */
export interface TableName {
  /** `"schema"."table"` or `"table"`, for statements. */
  readonly sql: string;
  /** The table's own name, unquoted: what its index names start with. */
  readonly base: string;
  /** `"schema".` or "": what an index of the table is named in. */
  readonly schemaSql: string;
}

const PART = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * `table` or `schema.table`, each part a plain identifier (letters, digits, underscores).
 * @throws TypeError saying what a name may be
 */
export function tableName(who: string, option: string, name: unknown): TableName {
  const parts = typeof name === "string" ? name.split(".") : [];
  if (parts.length === 0 || parts.length > 2 || !parts.every((part) => PART.test(part))) {
    throw new TypeError(
      `${who}: \`${option}\` must be a table name, "name" or "schema.name", each part letters, digits and underscores (at most 63), not starting with a digit; got ${JSON.stringify(name)}.`,
    );
  }
  return {
    sql: parts.map((part) => `"${part}"`).join("."),
    base: parts[parts.length - 1] as string,
    schemaSql: parts.length === 2 ? `"${parts[0]}".` : "",
  };
}

/**
 * The inbox's table and index, and the ledger's tables and indexes (ledger-schema.ts), as
 * to_regclass reads them.
 */
export function inboxRelations(table: TableName): string[] {
  return [
    table.sql,
    `${table.schemaSql}"${table.base}_processed_at_idx"`,
    MESSAGE_STATUS_TABLE,
    STATUS_HISTORY_TABLE,
    `${STATUS_HISTORY_TABLE}_message_id_idx`,
    ...LEDGER_RELATIONS,
  ];
}

/** The journal's table and index, as to_regclass reads them. */
export function journalRelations(table: TableName): string[] {
  return [table.sql, `${table.schemaSql}"${table.base}_status_last_seen_idx"`];
}

/**
 * The inbox: one row per report processed, its key committed with the handler's writes. With it
 * come the ledger's tables (recordStatus's, recordCall's, recordOptOut's), so that a handler can
 * record reports through `ctx.tx` from the first report on.
 */
export function inboxTableSql(table: TableName): string {
  return `CREATE TABLE IF NOT EXISTS ${table.sql} (
  key text PRIMARY KEY,
  processed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS "${table.base}_processed_at_idx" ON ${table.sql} (processed_at);
${statusTablesSql()}${ledgerSql()}`;
}

const OUTCOMES = DELIVERY_OUTCOMES.map((outcome) => `'${outcome}'`).join(", ");

/**
 * recordStatus's tables: a message's status (`updated_at`: when that status arrived;
 * `reported_at`: the report's own time; `previous_status`: the one it replaced) and every status
 * given, with whether it was applied and whether it contradicted a final one.
 */
export function statusTablesSql(): string {
  return `CREATE TABLE IF NOT EXISTS ${MESSAGE_STATUS_TABLE} (
  message_id text PRIMARY KEY,
  status text NOT NULL,
  outcome text NOT NULL CHECK (outcome IN (${OUTCOMES})),
  final boolean NOT NULL,
  reported_at timestamptz,
  updated_at timestamptz NOT NULL,
  first_seen timestamptz NOT NULL,
  previous_status text
);
CREATE TABLE IF NOT EXISTS ${STATUS_HISTORY_TABLE} (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_id text NOT NULL,
  status text NOT NULL,
  outcome text NOT NULL,
  final boolean NOT NULL,
  reported_at timestamptz,
  received_at timestamptz NOT NULL,
  applied boolean NOT NULL,
  conflict boolean NOT NULL
);
CREATE INDEX IF NOT EXISTS ${STATUS_HISTORY_TABLE}_message_id_idx ON ${STATUS_HISTORY_TABLE} (message_id, id);
`;
}

/** The failure journal: one row per report that could not be processed, until it is. */
export function journalTableSql(table: TableName): string {
  return `CREATE TABLE IF NOT EXISTS ${table.sql} (
  key text PRIMARY KEY,
  kind text CHECK (kind IN ('delivery', 'call')),
  status text NOT NULL CHECK (status IN ('failed', 'refused', 'resolved')),
  method text NOT NULL,
  url text NOT NULL,
  content_type text,
  body text NOT NULL,
  body_encoding text NOT NULL CHECK (body_encoding IN ('utf8', 'base64')),
  first_seen timestamptz NOT NULL,
  last_seen timestamptz NOT NULL,
  attempts integer NOT NULL,
  last_error text NOT NULL
);
CREATE INDEX IF NOT EXISTS "${table.base}_status_last_seen_idx" ON ${table.sql} (status, last_seen);
`;
}

/**
 * The SQL that creates the inbox's and the journal's tables, and the ledger's (recordStatus's
 * two, recordCall's and recordOptOut's) with the insights' indexes (`CREATE TABLE IF NOT
 * EXISTS`, so it may run again), for a migration tool. A ledger made by an older reportkit gets
 * the columns it lacks (`ALTER TABLE … ADD COLUMN IF NOT EXISTS`): run it again after an upgrade. The store checks
 * for them first and runs the same statements when one is missing, unless `createTables: false`.
 *
 * @example
 * import { postgresInboxSql } from "@reportkit/postgres";
 * // in a migration (node-pg-migrate, Knex, Kysely, a plain .sql file):
 * await db.query(postgresInboxSql());
 */
export function postgresInboxSql(options: { table?: string; journalTable?: string } = {}): string {
  return (
    inboxTableSql(tableName("postgresInboxSql", "table", options.table ?? DEFAULT_INBOX_TABLE)) +
    journalTableSql(
      tableName("postgresInboxSql", "journalTable", options.journalTable ?? DEFAULT_JOURNAL_TABLE),
    )
  );
}
