// The rig of the Postgres inbox's tests (inbox.test.ts, inbox-copies.test.ts): a PostgreSQL
// server of their own with a `deliveries` table for handlers to write to, inboxes on it (closed
// after the file), counts of what was committed, and the requests they send. The other
// Postgres tests (connections, partition, tables) share its requests and bounded wait.

import { type PostgresInbox, postgresInbox } from "@reportkit/postgres";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";
import { type PostgresServer, startPostgresServer } from "../support/postgres-server.js";

export const post = (id: string) =>
  new Request("http://localhost/webhooks", {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ ...SAMPLE_DLR, id }),
  });
export const HANDLED = '{"ok":true}';
export const DUPLICATE = '{"ok":true,"duplicate":true}';

/** `promise`, or a failure saying what did not answer within `ms`. */
export function answeredWithin<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** A promise and its resolve, to hold a handler open. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Starts the server before the file's tests (call it inside their describe) and stops it after. */
export function inboxRig() {
  let server: PostgresServer | undefined;
  let admin: pg.Pool | undefined;
  const stores: PostgresInbox[] = [];
  const started = <T>(value: T | undefined): T => {
    if (value === undefined)
      throw new Error("inboxRig: used before its beforeAll started the server");
    return value;
  };
  const rig = {
    /** The server; its `url` connects as its superuser. */
    get server(): PostgresServer {
      return started(server);
    },
    /** A pool of the test's own, beside the inboxes'. */
    get admin(): pg.Pool {
      return started(admin);
    },
    /** An inbox on the server, closed after the file. */
    inbox(options: Partial<Parameters<typeof postgresInbox>[0]> = {}) {
      const created = postgresInbox({ connectionString: rig.server.url, ...options });
      stores.push(created);
      return created;
    },
    async count(sql: string, values: unknown[] = []) {
      return Number((await rig.admin.query(sql, values)).rows[0].count);
    },
    /** The rows the handlers committed for report `id`. */
    deliveries: (id: string) =>
      rig.count("SELECT count(*) FROM deliveries WHERE report_id = $1", [id]),
    /** The inbox's keys of report `id`. */
    keys: (id: string) =>
      rig.count("SELECT count(*) FROM reportkit_inbox WHERE key LIKE $1", [`%${id}%`]),
  };
  beforeAll(async () => {
    server = await startPostgresServer();
    admin = new pg.Pool({ connectionString: server.url });
    admin.on("error", () => {});
    await admin.query("CREATE TABLE deliveries (report_id text NOT NULL, status text NOT NULL)");
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await admin?.end();
    await server?.close();
  });
  return rig;
}
