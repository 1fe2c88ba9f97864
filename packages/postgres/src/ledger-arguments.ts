// What recordCall, recordOptOut and mayMessage share: their argument checks (a transaction to
// write through, a report of their kind) and the error for a ledger table that is not there.
import type { Report } from "@reportkit/core";
import type pg from "pg";
import { withoutNul } from "./pg-text.js";

/** What the ledger's functions write through: the inbox's `ctx.tx`, a pg client or a pool. */
export type Executor = Pick<pg.ClientBase, "query">;

/** @throws TypeError naming `who` when `tx` cannot run a query */
export function checkExecutor(who: string, tx: unknown): asserts tx is Executor {
  if (typeof (tx as { query?: unknown } | null)?.query !== "function") {
    throw new TypeError(
      `${who}: \`tx\` must be a pg client in a transaction, e.g. the inbox's ctx.tx: ${who}(ctx.tx, report).`,
    );
  }
}

/** @throws TypeError naming `who` when `report` is not a report of `kind` */
export function checkKind<K extends Report["type"]>(
  who: string,
  report: unknown,
  kind: K,
  handler: string,
): asserts report is Extract<Report, { type: K }> {
  const given = report as { type?: unknown } | null;
  if (given === null || typeof given !== "object" || given.type !== kind) {
    const got =
      given === null || typeof given !== "object"
        ? String(given)
        : `type ${JSON.stringify(given.type)}`;
    throw new TypeError(
      `${who}: \`report\` must be a report of type "${kind}" (what ${handler} receives), got ${got}. recordStatus takes delivery reports, recordCall call reports, recordOptOut opt-outs.`,
    );
  }
}

/** Postgres's error, or for a missing table (42P01) one saying how to create it. */
export function explainedMissing(who: string, table: string, error: unknown): unknown {
  if ((error as { code?: string } | null)?.code !== "42P01") return error;
  return new Error(
    `${who}: the table ${table} does not exist. postgresInbox creates it with its own tables before the first report; without the inbox (or with createTables: false), run the SQL of postgresInboxSql() in a migration.`,
    { cause: error },
  );
}

/** `tx.query(text, values)`, a missing table's error explained. */
export async function ledgerQuery<R extends pg.QueryResultRow>(
  who: string,
  table: string,
  tx: Executor,
  text: string,
  values: unknown[],
): Promise<pg.QueryResult<R>> {
  try {
    return await tx.query<R>(text, values);
  } catch (error) {
    throw explainedMissing(who, table, error);
  }
}

/**
 * A whole number as an `integer` column holds it: null beyond its range (a report's count past
 * 2^31 - 1 is no duration, no part count: unusable, not a reason to fail the report).
 */
export function int4(value: number | null): number | null {
  return value !== null && value <= 2_147_483_647 ? value : null;
}

/**
 * Text as a `text` column holds it: Postgres cannot store NUL, and a report's text may carry one
 * (a JSON "\u0000" in a tag): written out as `\u0000`, rather than failing the report forever.
 */
export function pgText(value: string | null): string | null {
  return value === null ? null : withoutNul(value);
}
