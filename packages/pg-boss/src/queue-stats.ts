// `reportkit queue stats` on pg-boss: every queue's jobs counted by state, in SQL on pg-boss's
// queue and job tables (pg-boss 10's schema, which the dependency's major pins).
import { readOptions, shown } from "@reportkit/core/adapter";
import {
  type ConnectionOptions,
  connection,
  DEFAULT_TIMEOUT_MS,
} from "@reportkit/postgres/connection";
import { CALL_TIMEOUT_MS, queueNameOf, schemaOf } from "./queue-options.js";

export interface QueueStatsOptions extends ConnectionOptions {
  /** The queues to count. Default: every queue of the schema. */
  queueNames?: readonly string[];
  /** pg-boss's schema, as for `pgBossQueue`. Default "pgboss". */
  schema?: string;
}

/** One queue's jobs by state, as `reportkit queue stats` prints them. */
export interface QueueStats {
  readonly queueName: string;
  readonly schema: string;
  /** Waiting for a worker. */
  readonly waiting: number;
  /** Held by a worker now. */
  readonly active: number;
  /** Waiting for their next run (a retry's or a parked report's wait). */
  readonly delayed: number;
  /** Kept as failed: `reportkit queue failed` lists them. */
  readonly failed: number;
  /** Done and kept (2 h by default, so a provider retry adds nothing). */
  readonly completed: number;
}

/**
 * How many jobs each queue holds, by state (what `reportkit queue stats --db postgres://…`
 * prints). No pg-boss schema in the database: no queues.
 */
export async function queueStats(options: QueueStatsOptions): Promise<QueueStats[]> {
  const who = "queueStats";
  readOptions(who, options, {
    example: "queueStats({ connectionString: process.env.DATABASE_URL })",
    known: ["pool", "connectionString", "queueNames", "schema"],
  });
  const { queueNames } = options;
  if (queueNames !== undefined && !Array.isArray(queueNames)) {
    throw new TypeError(
      `${who}: \`queueNames\` must be a list of names, got ${shown(queueNames)}.`,
    );
  }
  const names = queueNames?.map((queueName) => queueNameOf(queueName, who));
  const schema = schemaOf(options.schema, who);
  const db = connection(who, options);
  try {
    const { rows: installed } = await db.query(
      "finding the queues",
      "SELECT to_regclass($1) IS NOT NULL AS installed",
      [`${schema}.queue`],
      DEFAULT_TIMEOUT_MS,
    );
    if (installed[0]?.installed !== true) return [];
    const { rows } = await db.query(
      "counting the jobs",
      `SELECT q.name,
  count(j.id) FILTER (WHERE j.state < 'active' AND j.start_after <= now())::int AS waiting,
  count(j.id) FILTER (WHERE j.state = 'active')::int AS active,
  count(j.id) FILTER (WHERE j.state < 'active' AND j.start_after > now())::int AS delayed,
  count(j.id) FILTER (WHERE j.state = 'failed')::int AS failed,
  count(j.id) FILTER (WHERE j.state = 'completed')::int AS completed
FROM ${schema}.queue q LEFT JOIN ${schema}.job j ON j.name = q.name
WHERE $1::text[] IS NULL OR q.name = ANY($1)
GROUP BY q.name ORDER BY q.name`,
      [names ?? null],
      CALL_TIMEOUT_MS,
    );
    return rows.map((row: Omit<QueueStats, "queueName" | "schema"> & { name: string }) => ({
      queueName: row.name,
      schema,
      waiting: row.waiting,
      active: row.active,
      delayed: row.delayed,
      failed: row.failed,
      completed: row.completed,
    }));
  } finally {
    await db.end();
  }
}
