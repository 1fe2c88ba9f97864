// Whether a journal table takes every kind of push the receiver knows (REPORT_KINDS). A table
// made before opt-outs and events were kinds of their own checks `kind IN ('delivery', 'call')`,
// and the failure of an opt-out could not be kept there: `kindCheckSql` (schema.ts) replaces
// that check. It is part of the journal's SQL, so a store that may create its tables applies it
// on start, and one that may not names it in its error.
import { REPORT_KINDS } from "@reportkit/wire";
import type { Connection } from "./connection.js";
import { kindCheckName, kindCheckSql, type TableName } from "./schema.js";
import type { Stale } from "./table-check.js";

/**
 * Why the journal table's kind check is out of date (a table made before opt-outs and events
 * were kinds of their own) and the ALTER TABLE that updates it, or undefined when it takes every
 * kind. Asked of the catalog, no lock.
 */
export async function staleKindCheck(
  db: Connection,
  table: TableName,
  timeoutMs: number,
): Promise<Stale | undefined> {
  const { rows } = await db.query(
    "checking the tables",
    "SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = to_regclass($1) AND conname = $2",
    [table.sql, kindCheckName(table)],
    timeoutMs,
  );
  const def = (rows[0] as { def: string } | undefined)?.def ?? "";
  const missing = REPORT_KINDS.filter((kind) => !def.includes(`'${kind}'`));
  if (missing.length === 0) return undefined;
  return {
    reason: `the journal table ${table.sql} does not take reports of kind ${missing.join(", ")} (its kind check was made by an older reportkit)`,
    sql: kindCheckSql(table),
  };
}
