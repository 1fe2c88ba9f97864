// Whether the store's tables are there, asked of the catalog without a lock: `to_regclass` of
// each table and index. Only what is missing is created (`CREATE … IF NOT EXISTS` takes a lock
// on the table even when the index exists, so a new process running it would wait behind every
// open report transaction, and every other process's claims behind it). With `createTables:
// false` nothing is ever created: a missing table is an error naming `postgresInboxSql()`.
import type { Connection } from "./connection.js";

/** The relations a store needs, and the SQL that creates them. */
export interface TableSet {
  /** Each table and index, as `to_regclass` reads a name (quoted parts, schema first). */
  readonly relations: readonly string[];
  /**
   * Columns a table made by an older reportkit may lack (table, column): `createSql` adds them
   * (`ADD COLUMN IF NOT EXISTS`).
   */
  readonly columns?: readonly (readonly [string, string])[];
  readonly createSql: () => string;
}

/**
 * The relations of $1 that do not exist (or that the role cannot see), then each column of
 * $2/$3 (table, column) that its existing table lacks, as "table.column"; in the given order.
 */
export const MISSING_SQL = `SELECT name FROM (
  SELECT name, n FROM unnest($1::text[]) WITH ORDINALITY AS t(name, n) WHERE to_regclass(name) IS NULL
  UNION ALL
  SELECT rel || '.' || col, cardinality($1::text[]) + n
  FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS c(rel, col, n)
  WHERE to_regclass(rel) IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass(rel) AND attname = col AND NOT attisdropped)
) missing ORDER BY n`;

/** MISSING_SQL's parameters for `tables`. */
export function missingParameters(
  tables: Pick<TableSet, "relations" | "columns">,
): [string[], string[], string[]] {
  const columns = tables.columns ?? [];
  return [[...tables.relations], columns.map(([t]) => t), columns.map(([, c]) => c)];
}

/** Why a store creates nothing: its tables were migrated, or it only reads. */
export type CreateMode = "create" | "migrated" | "read-only";

/** A lock of the stores' own: two processes creating the tables at once take turns. */
const CREATE_LOCK = 7245310919;

/**
 * `ensure()` settles once the tables are there (created if `mode` allows); later calls share
 * the first success, and a failure is tried again by the next call.
 */
export function tableCheck(
  db: Connection,
  tables: TableSet,
  mode: CreateMode,
  timeoutMs: number,
): () => Promise<void> {
  let ready: Promise<void> | undefined;

  async function check(): Promise<void> {
    const missing = await missingOf(db, tables, timeoutMs);
    if (missing.length === 0) return;
    if (mode !== "create") {
      throw db.failure("checking the tables", missingError(missing, tables.relations, mode));
    }
    let client: Awaited<ReturnType<Connection["connect"]>>;
    try {
      client = await db.connect();
    } catch (error) {
      throw db.failure("creating the tables", error);
    }
    try {
      // One transaction, under a lock of its own (two processes creating at once would race on
      // CREATE TABLE IF NOT EXISTS: a unique violation in pg_type), waiting for other locks at
      // most timeoutMs: a report's claim then gets 503 and is retried, rather than stall.
      await client.query(
        `BEGIN; SET LOCAL lock_timeout = ${Math.max(timeoutMs, 1000)}; SELECT pg_advisory_xact_lock(${CREATE_LOCK}); ${tables.createSql()} COMMIT;`,
      );
      client.release();
    } catch (error) {
      client.release(error instanceof Error ? error : true);
      throw db.failure("creating the tables", error);
    }
  }

  return () => {
    ready ??= check().catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };
}

/** The relations of `tables` that do not exist (or that the role cannot see), and lacking columns. */
async function missingOf(db: Connection, tables: TableSet, timeoutMs: number): Promise<string[]> {
  const { rows } = await db.query(
    "checking the tables",
    MISSING_SQL,
    missingParameters(tables),
    timeoutMs,
  );
  return rows.map((row: { name: string }) => row.name);
}

function missingError(
  missing: readonly string[],
  relations: readonly string[],
  mode: CreateMode,
): Error {
  const list = missing.join(", ");
  // Columns only: tables an older reportkit made, before the ledger kept what insights read.
  const older = missing.every((name) => !relations.includes(name))
    ? " (the ledger's tables were made by an older reportkit: the SQL adds the columns they lack, ALTER TABLE … ADD COLUMN IF NOT EXISTS)"
    : "";
  return new Error(
    mode === "migrated"
      ? `missing ${list}; with \`createTables: false\` the store creates nothing: run the SQL postgresInboxSql() returns in a migration${older}`
      : `missing ${list}; nothing was kept there yet, or the journal is in another table or database (postgresInbox creates it on first use; postgresInboxSql() gives its SQL)`,
  );
}
