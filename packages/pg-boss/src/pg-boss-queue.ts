import { randomUUID } from "node:crypto";
import type { Report } from "@reportkit/core";
import {
  distinctLines,
  type ReportQueue,
  readOptions,
  type TraceCarrier,
} from "@reportkit/core/adapter";
import {
  type ConnectionOptions,
  connection,
  DEFAULT_TIMEOUT_MS,
} from "@reportkit/postgres/connection";
import { bossOn, bossReady } from "./boss-db.js";
import { newJobData } from "./job-data.js";
import { reportJobId } from "./job-id.js";
import { queueNameOf, schemaOf } from "./queue-options.js";
import { reportJobs } from "./report-jobs.js";

export interface PgBossQueueOptions extends ConnectionOptions {
  /** The pg-boss queue; the worker must use the same. Default "reportkit". */
  queueName?: string;
  /** pg-boss's schema (created on first use when missing); the worker must use the same. Default "pgboss". */
  schema?: string;
  /** Called with errors of pg-boss's own. Default: one line on stderr per new error message. */
  onError?: (error: Error) => void;
}

/** A `ReportQueue` on pg-boss, for the receiver's `queue` option. */
export interface PgBossReportQueue extends ReportQueue {
  /** The pg-boss queue name. */
  readonly name: string;
  /** One round trip to Postgres, for `receiver.health()`; rejects, naming Postgres, when unreachable. */
  ping(): Promise<void>;
  /** Ends the pool the queue opened from `connectionString` (a borrowed pool stays open). */
  close(): Promise<void>;
}

/**
 * A pg-boss queue for the receiver's `queue` option, on PostgreSQL alone: each report becomes a
 * job whose id is derived from the report's dedupe key, so a provider retry adds no second job.
 * `enqueue` resolves once Postgres committed the job (each statement bounded: a database that
 * is down or does not answer is a rejection, and the receiver's 503), so the provider gets 202
 * only for a report that is stored. pg-boss's schema and the queue are created on first use.
 *
 * @example
 * import { pgBossQueue } from "@reportkit/pg-boss";
 * import { webhookReceiver } from "@reportkit/express";
 *
 * const queue = pgBossQueue({ connectionString: process.env.DATABASE_URL });
 * app.use(webhookReceiver({ path: "/webhooks", queue }));
 */
export function pgBossQueue(options: PgBossQueueOptions): PgBossReportQueue {
  const who = "pgBossQueue";
  const read = readOptions(who, options, {
    example: "pgBossQueue({ connectionString: process.env.DATABASE_URL })",
    known: ["pool", "connectionString", "queueName", "schema", "onError"],
  });
  const onError = read.callback("onError") ?? distinctLines("reportkit pg-boss queue");
  const name = queueNameOf(options.queueName, who);
  const settings = { schema: schemaOf(options.schema, who), onError };
  const db = connection(who, options);
  const boss = bossOn(db, settings);
  const ready = bossReady(db, settings, boss, name);
  const jobs = reportJobs(db, boss, settings.schema, name);
  let closing: Promise<void> | undefined;
  const closed = () => new Error(`${who}: queue "${name}" is closed.`);

  return {
    name,
    async enqueue(
      report: Report,
      key: string | undefined,
      meta?: { trace?: TraceCarrier },
    ): Promise<void> {
      if (closing !== undefined) throw closed();
      await ready.ensure();
      const id = key === undefined ? randomUUID() : reportJobId(key);
      const data = newJobData(report, key, meta?.trace);
      if (await jobs.add(id, data)) return;
      // Nothing added: the report's job is there already (queued, running or done: nothing
      // more to do), or kept as failed (a replay of its journal entry: put back, from a full
      // set of retries), or the queue itself is gone.
      const state = await jobs.stateOf(id);
      if (state === "failed") await jobs.rewrite(id, data, 0);
      if (state === null) {
        ready.forget();
        throw db.failure(
          "enqueue",
          new Error(
            `queue "${name}" does not exist in schema "${settings.schema}"; it is created again on the next report`,
          ),
        );
      }
    },
    async ping(): Promise<void> {
      if (closing !== undefined) throw closed();
      await db.query("ping", "SELECT 1", [], DEFAULT_TIMEOUT_MS);
    },
    close() {
      closing ??= db.end();
      return closing;
    },
  };
}
