// The store's way to Postgres: a pool of its own (from a connection string) or a borrowed one,
// a connect that gives up in time, errors that say where and why (never a password), and the
// tables created once, on first use.
import { StoreError } from "@reportkit/core/adapter";
import pg from "pg";

/** How long taking a connection may take before Postgres counts as unreachable (503). */
export const CONNECT_TIMEOUT_MS = 5000;

export interface ConnectionOptions {
  /** A `pg.Pool` you already have: borrowed, never ended by the store. */
  pool?: pg.Pool;
  /** e.g. `postgres://user:password@host:5432/db`: the store opens (and ends) a pool of its own. */
  connectionString?: string;
}

export interface Connection {
  readonly pool: pg.Pool;
  /** True when the pool was opened from `connectionString` (then `end` ends it). */
  readonly owned: boolean;
  /** host:port, for messages. */
  readonly address: string;
  /** A client of the pool, or a rejection within CONNECT_TIMEOUT_MS. */
  connect(): Promise<pg.PoolClient>;
  /** `error` as a message that says what failed, on which server, and why. */
  failure(what: string, error: unknown): StoreError;
  /** Creates the tables once (again after a failed try); later calls share the first. */
  ready(): Promise<void>;
  end(): Promise<void>;
}

const ignore = () => {};

export function connection(
  who: string,
  options: ConnectionOptions,
  tablesSql: () => string,
): Connection {
  const { pool: given, connectionString } = options;
  if (given !== undefined && connectionString !== undefined) {
    throw new TypeError(
      `${who}: give \`pool\` or \`connectionString\`, not both (with \`pool\` the store uses yours as it is).`,
    );
  }
  let pool: pg.Pool;
  let address: string;
  if (given !== undefined) {
    if (typeof given !== "object" || given === null || typeof given.connect !== "function") {
      throw new TypeError(
        `${who}: \`pool\` must be a pg.Pool, e.g. new pg.Pool({ connectionString: process.env.DATABASE_URL }).`,
      );
    }
    pool = given;
    const { host, port } = (given as { options?: { host?: string; port?: number } }).options ?? {};
    address = `${host ?? "localhost"}:${port ?? 5432}`;
  } else {
    if (typeof connectionString !== "string" || connectionString === "") {
      throw new TypeError(
        `${who}: give \`connectionString\` (e.g. 'postgres://user:password@127.0.0.1:5432/app') or \`pool\` (a pg.Pool).`,
      );
    }
    address = addressOf(who, connectionString);
    pool = new pg.Pool({ connectionString, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  }
  // An idle client whose server went away emits "error" on the pool: without a listener that
  // would end the process. The pool drops the client either way; the next connect says why.
  pool.on("error", ignore);

  let tables: Promise<void> | undefined;

  function failure(what: string, error: unknown): StoreError {
    return new StoreError(who, what, `Postgres at ${address}`, error);
  }

  async function connect(): Promise<pg.PoolClient> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let late = false;
    const connecting = pool.connect();
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        late = true;
        reject(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`));
      }, CONNECT_TIMEOUT_MS);
    });
    // A connection that arrives after the give-up goes straight back.
    connecting.then((client) => late && client.release(), ignore);
    try {
      const client = await Promise.race([connecting, timedOut]);
      // A checked-out client whose server goes away emits "error" on itself: the query in
      // flight rejects with it; the listener keeps the event from ending the process.
      client.on("error", ignore);
      return client;
    } finally {
      clearTimeout(timer);
    }
  }

  function ready(): Promise<void> {
    tables ??= (async () => {
      const client = await connect();
      try {
        // One transaction, under a lock of its own: two processes starting at once would
        // otherwise race on CREATE TABLE IF NOT EXISTS (a unique violation in pg_type).
        await client.query(
          `BEGIN; SELECT pg_advisory_xact_lock(7245310919); ${tablesSql()} COMMIT;`,
        );
        releaseClient(client);
      } catch (error) {
        releaseClient(client, error);
        throw error;
      }
    })().catch((error: unknown) => {
      tables = undefined;
      throw failure("creating the tables", error);
    });
    return tables;
  }

  return {
    pool,
    owned: given === undefined,
    address,
    connect,
    failure,
    ready,
    async end() {
      if (given === undefined) await pool.end();
    },
  };
}

/** host:port of a connection string, never its user name or password. */
function addressOf(who: string, connectionString: string): string {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    throw new TypeError(
      `${who}: \`connectionString\` is not a URL; give it as postgres://user:password@host:5432/database.`,
    );
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new TypeError(
      `${who}: \`connectionString\` must start with postgres:// or postgresql://, got the scheme ${url.protocol}`,
    );
  }
  return `${url.hostname || "localhost"}:${url.port || "5432"}`;
}

/** Releases a client: back to the pool, or destroyed when it failed (its state is unknown). */
export function releaseClient(client: pg.PoolClient, error?: unknown): void {
  client.removeListener("error", ignore);
  client.release(error === undefined ? undefined : error instanceof Error ? error : true);
}
