// A pool for reading the insights: every connection read-only (a statement that would write
// fails, whatever the role may do), each statement bounded, a connection bounded too, and a
// server's error on an idle connection never ends the process.
import pg from "pg";
import { CONNECT_TIMEOUT_MS } from "../connection.js";

export interface ReadOnlyPoolOptions {
  /** postgres://user:password@host:5432/database; a role that may only SELECT is enough. */
  connectionString: string;
  /** How long one query may run, in ms. Default 30 s. */
  statementTimeoutMs?: number;
  /** Connections at most. Default 4. */
  max?: number;
}

export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;

/**
 * A `pg.Pool` whose sessions are read-only (`default_transaction_read_only`) with a statement
 * timeout, for the insights' queries (`reportkit insights` reads through one). End it with
 * `pool.end()`.
 */
export function readOnlyPool(options: ReadOnlyPoolOptions): pg.Pool {
  const timeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeout) || timeout < 1) {
    throw new TypeError(
      `readOnlyPool: \`statementTimeoutMs\` must be a whole number of ms from 1; got ${timeout}.`,
    );
  }
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 4,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  // An idle connection the server closed: the pool drops it (no listener would end the process).
  pool.on("error", () => {});
  pool.on("connect", (client) => {
    client.on("error", () => {});
    // Queued before any query of the pool's on this connection: the session is set up first.
    client
      .query(`SET default_transaction_read_only = on; SET statement_timeout = ${timeout}`)
      .catch(() => {});
  });
  return pool;
}
