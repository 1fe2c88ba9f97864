// The store's way to Postgres: a pool of its own (from a connection string) or a borrowed one,
// every client of it watched from the moment the pool hands it out (a server message then never
// ends the process), every wait bounded (taking a connection, each statement: a connection that
// gives no answer in time is destroyed, never handed out again), and errors that say where and
// why (never a password).
import { StoreError } from "@reportkit/core/adapter";
import pg from "pg";

/** How long taking a connection may take before Postgres counts as unreachable (503). */
export const CONNECT_TIMEOUT_MS = 5000;
/** How long one statement may go unanswered before its connection counts as lost (503). */
export const DEFAULT_TIMEOUT_MS = 2000;
/** TCP keep-alive on the store's own connections: a peer gone silent is found in minutes. */
const KEEP_ALIVE_DELAY_MS = 10_000;

export interface ConnectionOptions {
  /** A `pg.Pool` you already have: borrowed, never ended by the store. */
  pool?: pg.Pool;
  /** e.g. `postgres://user:password@host:5432/db`: the store opens (and ends) a pool of its own. */
  connectionString?: string;
}

/** What a client's session error is told to: the claim that holds it, if one does. */
export type SessionWatcher = (error: Error) => void;

export interface Connection {
  readonly pool: pg.Pool;
  /** True when the pool was opened from `connectionString` (then `end` ends it). */
  readonly owned: boolean;
  /** host:port, for messages. */
  readonly address: string;
  /** A client of `pool` (default the store's), or a rejection within CONNECT_TIMEOUT_MS. */
  connect(pool?: pg.Pool): Promise<pg.PoolClient>;
  /** `error` as a message that says what failed, on which server, and why. */
  failure(what: string, error: unknown): StoreError;
  /**
   * One statement on a client of `from` (default the store's pool), taking the client and the
   * answer each bounded; a failure as a StoreError saying `what` failed.
   */
  query(
    what: string,
    text: string,
    values: readonly unknown[],
    timeoutMs: number,
    from?: pg.Pool,
  ): Promise<pg.QueryResult>;
  /** Tells `watcher` of an error on `client`'s session until `unwatch`. */
  watch(client: pg.PoolClient, watcher: SessionWatcher): void;
  unwatch(client: pg.PoolClient): void;
  /**
   * A pool of a few connections of its own, opened with the same settings: for writes that must
   * not wait behind the store's claims (the journal). Ended by `end`.
   */
  sidePool(max: number): pg.Pool;
  end(): Promise<void>;
}

const ignore = () => {};

/**
 * `poolSize`: the `max` of the pool opened from `connectionString` (pg's default, 10, when
 * undefined); a borrowed pool keeps its own.
 */
export function connection(who: string, options: ConnectionOptions, poolSize?: number): Connection {
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
    address = addressOfPool(who, given);
  } else {
    if (typeof connectionString !== "string" || connectionString === "") {
      throw new TypeError(
        `${who}: give \`connectionString\` (e.g. 'postgres://user:password@127.0.0.1:5432/app') or \`pool\` (a pg.Pool).`,
      );
    }
    address = addressOf(who, connectionString);
    pool = new pg.Pool({
      ...ownSettings({ connectionString }),
      ...(poolSize !== undefined && { max: poolSize }),
    });
  }
  const watchers = new WeakMap<pg.ClientBase, SessionWatcher>();
  const side: pg.Pool[] = [];
  watchPool(pool);

  /**
   * Every client gets its error listener as the pool hands it out, before anything can await:
   * a FATAL right behind ReadyForQuery (a server shutting down) would otherwise be emitted
   * with no listener and end the process. The pool's own listener covers idle clients.
   */
  function watchPool(target: pg.Pool): void {
    // An idle client whose server went away emits "error" on the pool: the pool drops it.
    target.on("error", ignore);
    const listening = new WeakSet<pg.ClientBase>();
    target.on("acquire", (client) => {
      if (listening.has(client)) return;
      listening.add(client);
      client.on("error", (error: Error) => watchers.get(client)?.(error));
    });
  }

  function failure(what: string, error: unknown): StoreError {
    return new StoreError(who, what, `Postgres at ${address}`, error);
  }

  async function connect(from: pg.Pool = pool): Promise<pg.PoolClient> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let late = false;
    const connecting = from.connect();
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        late = true;
        reject(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`));
      }, CONNECT_TIMEOUT_MS);
    });
    // A connection that arrives after the give-up goes straight back.
    connecting.then((client) => late && client.release(), ignore);
    try {
      return await Promise.race([connecting, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function query(
    what: string,
    text: string,
    values: readonly unknown[],
    timeoutMs: number,
    from: pg.Pool = pool,
  ): Promise<pg.QueryResult> {
    let client: pg.PoolClient;
    try {
      client = await connect(from);
    } catch (error) {
      throw failure(what, error);
    }
    try {
      const result = await answered(client, client.query(text, values as unknown[]), timeoutMs);
      client.release();
      return result;
    } catch (error) {
      if (isStatementError(error)) client.release();
      else releaseClient(client, error);
      throw failure(what, error);
    }
  }

  return {
    pool,
    owned: given === undefined,
    address,
    connect,
    failure,
    query,
    watch: (client, watcher) => void watchers.set(client, watcher),
    unwatch: (client) => void watchers.delete(client),
    sidePool(max) {
      const settings =
        given === undefined
          ? ownSettings({ connectionString })
          : borrowedSettings(given as pg.Pool & { options?: pg.PoolConfig });
      // A borrowed object that is no pg.Pool (no settings to copy): its own connections.
      if (settings === undefined) return pool;
      const opened = new pg.Pool({ ...settings, max });
      watchPool(opened);
      side.push(opened);
      return opened;
    },
    async end() {
      await Promise.all(side.splice(0).map((p) => p.end().catch(ignore)));
      if (given === undefined) await pool.end();
    },
  };
}

function ownSettings(settings: pg.PoolConfig): pg.PoolConfig {
  return {
    ...settings,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEP_ALIVE_DELAY_MS,
  };
}

/** A borrowed pool's settings, its password included (pg-pool keeps it out of enumeration). */
function borrowedSettings(given: { options?: pg.PoolConfig }): pg.PoolConfig | undefined {
  const { options } = given;
  if (typeof options !== "object" || options === null) return undefined;
  return {
    ...options,
    password: options.password,
    connectionTimeoutMillis: options.connectionTimeoutMillis || CONNECT_TIMEOUT_MS,
  };
}

/**
 * Waits for `query` at most `ms`; past that the connection is destroyed (its state is unknown:
 * a statement may still arrive) and the wait rejects saying so.
 */
export async function answered<T>(
  client: pg.PoolClient,
  query: Promise<T>,
  ms: number,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      destroy(client);
      reject(new Error(`no answer within ${ms} ms; the connection was closed`));
    }, ms);
  });
  query.catch(ignore);
  try {
    return await Promise.race([query, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Closes a client's socket at once, without the goodbye a frozen server would never read. */
export function destroy(client: pg.ClientBase): void {
  (client as pg.Client).connection?.stream?.destroy();
}

/**
 * Gives a client back: to the pool, or after an error destroyed, so that no one gets it again
 * (a lost or timed-out connection, or one whose transaction is in an unknown state).
 */
export function releaseClient(client: pg.PoolClient, error?: unknown): void {
  if (error === undefined) {
    client.release();
    return;
  }
  destroy(client);
  client.release(error instanceof Error ? error : true);
}

/**
 * An error the server answered a single statement with (it has a SQLSTATE, and is no FATAL of
 * a session ending): outside a transaction the connection is as good as before.
 */
export function isStatementError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && !/^(57P|08|25P)/.test(code);
}

/** host:port of a borrowed pool: its `host`, else its connection string's, else pg's default. */
function addressOfPool(who: string, given: pg.Pool): string {
  const options = (given as { options?: pg.PoolConfig }).options ?? {};
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  if (options.host === undefined && typeof options.connectionString === "string") {
    try {
      return addressOf(who, options.connectionString);
    } catch {
      // Not a URL (a libpq "host=… port=…" string): named as pg would connect.
    }
  }
  const host = options.host ?? env?.PGHOST ?? "localhost";
  const port = options.port ?? env?.PGPORT ?? 5432;
  return `${host}:${port}`;
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
