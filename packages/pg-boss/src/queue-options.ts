// What the queue, the worker and the tools share besides their connection to Postgres (that one
// is @reportkit/postgres/connection's): the queue's name and pg-boss's schema, and the bounds of
// their statements.

/** The default queue name: the receiver and the worker must use the same one. */
export const DEFAULT_QUEUE_NAME = "reportkit";

/** pg-boss's own default schema, where its tables are. */
export const DEFAULT_SCHEMA = "pgboss";

/**
 * How long one statement of an add, a fetch, a ping or a page of failed jobs may go unanswered
 * before Postgres counts as unreachable (the connection is then closed). Past the receiver's
 * answer deadline (8 s by default) the receiver's own bound speaks first for a report.
 */
export const CALL_TIMEOUT_MS = 10_000;

/**
 * How long pg-boss's own chores may take: creating or migrating its schema (it waits up to 30 s
 * for its lock), and its maintenance (expiring the jobs of a dead worker, archiving).
 */
export const CHORE_TIMEOUT_MS = 60_000;

const QUEUE_NAME = /^[A-Za-z0-9_-]{1,100}$/;
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,49}$/;

/** Validates a queue name once (pg-boss names a table after it). */
export function queueNameOf(queueName: unknown, who: string): string {
  if (queueName === undefined) return DEFAULT_QUEUE_NAME;
  if (typeof queueName !== "string" || !QUEUE_NAME.test(queueName)) {
    throw new TypeError(
      `${who}: \`queueName\` must be 1 to 100 letters, digits, "_" or "-", got ${JSON.stringify(queueName)}.`,
    );
  }
  return queueName;
}

/** Validates pg-boss's schema name once (it is written into SQL). */
export function schemaOf(schema: unknown, who: string): string {
  if (schema === undefined) return DEFAULT_SCHEMA;
  if (typeof schema !== "string" || !SCHEMA_NAME.test(schema)) {
    throw new TypeError(
      `${who}: \`schema\` must be a plain identifier (letters, digits, "_", not starting with a digit, at most 50), got ${JSON.stringify(schema)}.`,
    );
  }
  return schema;
}
