// pg-boss on reportkit's connection to Postgres: pg-boss takes a `db` (anything with
// `executeSql`) in place of a pool of its own, so its statements go through
// @reportkit/postgres's connection, each one bounded (taking a connection, the answer) and a
// failure named as what failed on which server, never with a password.
import { answered, type Connection, releaseClient } from "@reportkit/postgres/connection";
import type pg from "pg";
import PgBoss from "pg-boss";
import { CHORE_TIMEOUT_MS } from "./queue-options.js";

export type BossDb = PgBoss.Db;

/**
 * pg-boss's statements on a connection of the pool, `what` naming them in a failure. A failed
 * one's connection is closed, never reused: pg-boss sends some as one text with its own BEGIN
 * (its schema's creation), and an error there leaves the session inside an aborted transaction.
 */
export function poolDb(db: Connection, what: string, timeoutMs: number): BossDb {
  return {
    async executeSql(text, values) {
      let client: pg.PoolClient;
      try {
        client = await db.connect();
      } catch (error) {
        throw db.failure(what, error);
      }
      try {
        const result = await answered(client, prepared(client, text, values), timeoutMs);
        releaseClient(client);
        return result;
      } catch (error) {
        releaseClient(client, error);
        throw db.failure(what, error);
      }
    },
  };
}

/** pg-boss's statements inside a transaction of ours, on its client. */
export function clientDb(client: pg.PoolClient, timeoutMs: number): BossDb {
  return {
    executeSql: (text, values) => answered(client, prepared(client, text, values), timeoutMs),
  };
}

/** The names of pg-boss's statements prepared on a connection, by their text. */
const statementNames = new Map<string, string>();

/**
 * `text` with `values` as a statement prepared once per connection, by a name of its own: pg-boss
 * sends each of its statements as a long text (its insert is 2 KB, with 19 parameters), which
 * Postgres would parse and plan again on every call and pg send again in full. Measured on the
 * receiver's add: about a third less CPU in the process, and half the wall time. A text
 * without values (several statements, or none with parameters) goes as it is.
 */
function prepared(client: pg.PoolClient, text: string, values: unknown[] | undefined) {
  if (values === undefined || values.length === 0) return client.query(text);
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `reportkit_pg_boss_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return client.query({ name, text, values });
}

export interface BossSettings {
  readonly schema: string;
  /** For a worker's maintenance: how long completed and failed jobs stay in pg-boss's job table. */
  readonly keep?: { readonly completedMs: number; readonly failedMs: number };
  readonly onError: (error: Error) => void;
}

/**
 * A PgBoss on `db`, never started: reportkit calls its API with a `db` of its own for each
 * call, creates the schema with `bossReady` and runs its maintenance itself (`maintain()`), so
 * pg-boss runs no timer, no cron scheduler and no pool of its own. Its statements without a
 * `db` of reportkit's (the schema's creation, maintenance) may take CHORE_TIMEOUT_MS.
 */
export function bossOn(db: Connection, settings: BossSettings): PgBoss {
  const boss = new PgBoss(bossConfig(db, settings));
  // An 'error' event without a listener would throw: an error never ends the host.
  boss.on("error", (error) => settings.onError(asError(error)));
  return boss;
}

function bossConfig(db: Connection, settings: BossSettings): PgBoss.ConstructorOptions {
  const { keep } = settings;
  return {
    db: poolDb(db, "pg-boss", CHORE_TIMEOUT_MS),
    schema: settings.schema,
    schedule: false,
    supervise: false,
    migrate: true,
    ...(keep && {
      archiveCompletedAfterSeconds: Math.max(1, Math.ceil(keep.completedMs / 1000)),
      archiveFailedAfterSeconds: Math.max(1, Math.ceil(keep.failedMs / 1000)),
      // The archive holds nothing reportkit reads: its rows (reports with phone numbers) go at
      // the next maintenance.
      deleteAfterSeconds: 1,
    }),
  };
}

/**
 * `ensure()` settles once pg-boss's schema is there (created or migrated by pg-boss's own
 * start, which takes its advisory lock, so processes starting together take turns) and the
 * queue exists, expiring its jobs after `expireInSeconds` when given; later calls share the
 * first success, and a failure is tried again by the next call. `forget()` makes the next call
 * check again (the queue went away).
 */
export function bossReady(
  db: Connection,
  settings: BossSettings,
  boss: PgBoss,
  queueName: string,
  expireInSeconds?: number,
): { ensure(): Promise<void>; forget(): void } {
  let ready: Promise<void> | undefined;
  async function check(): Promise<void> {
    // A PgBoss whose start() failed once answers every later start() as started, schema or
    // not: each check starts one of its own, that has no timer to stop.
    try {
      await new PgBoss(bossConfig(db, settings)).start();
    } catch (error) {
      // Two processes creating the schema at once: pg-boss's create takes an advisory lock, but
      // the second's CREATE SCHEMA IF NOT EXISTS can still read the catalog from before the
      // first committed and fail on the unique index (seen with the receiver and the worker
      // starting together). The schema is there now: start again, finding it installed.
      if (!hasCode(error, "23505")) throw error;
      await new PgBoss(bossConfig(db, settings)).start();
    }
    const queue = await boss.getQueue(queueName);
    if (
      queue !== null &&
      (expireInSeconds === undefined || queue.expireInSeconds === expireInSeconds)
    ) {
      return;
    }
    // pg-boss creates a queue's table and attaches it to its job table, taking locks a second
    // process creating a queue at once takes in the other order (a deadlock): every process
    // creating or changing a queue in this schema takes turns, under a lock of reportkit's.
    await inTransaction(db, "creating the queue", CHORE_TIMEOUT_MS, async (via) => {
      await via.executeSql("SELECT pg_advisory_xact_lock(hashtext($1))", [
        `reportkit: pg-boss queues in ${settings.schema}`,
      ]);
      const inside = new PgBoss({ ...bossConfig(db, settings), db: via });
      await inside.createQueue(queueName, { name: queueName, policy: "standard" });
      if (expireInSeconds !== undefined) {
        await inside.updateQueue(queueName, { name: queueName, expireInSeconds });
      }
    });
  }
  return {
    ensure() {
      ready ??= check().catch((error: unknown) => {
        ready = undefined;
        throw error;
      });
      return ready;
    },
    forget() {
      ready = undefined;
    },
  };
}

/**
 * `write` in one transaction on a connection of the pool, each statement bounded by
 * `timeoutMs`; its failure named `what`.
 */
export async function inTransaction(
  db: Connection,
  what: string,
  timeoutMs: number,
  write: (via: BossDb) => Promise<void>,
): Promise<void> {
  let client: pg.PoolClient;
  try {
    client = await db.connect();
  } catch (error) {
    throw db.failure(what, error);
  }
  const via = clientDb(client, timeoutMs);
  try {
    await via.executeSql("BEGIN", []);
    await write(via);
    await via.executeSql("COMMIT", []);
  } catch (error) {
    // The transaction is in an unknown state: its connection is closed, never reused (the
    // server rolls it back).
    releaseClient(client, error);
    throw db.failure(what, error);
  }
  releaseClient(client);
}

/** pg-boss emits plain objects for some errors (a worker's): always an Error here. */
export function asError(error: unknown): Error {
  if (error instanceof Error) return error;
  const message = (error as { message?: unknown } | null)?.message;
  return new Error(typeof message === "string" ? message : String(error));
}

/** Whether `error`, or an error it was caused by, carries Postgres's SQLSTATE `code`. */
function hasCode(error: unknown, code: string): boolean {
  for (let at = error; at instanceof Error; at = at.cause) {
    if ((at as { code?: unknown }).code === code) return true;
  }
  return false;
}
