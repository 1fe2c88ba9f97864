// `reportkit queue failed|retry` on pg-boss: the jobs a worker gave up on, listed and put back.
// pg-boss's API has no listing by state, so the reads are SQL on its job table (pg-boss 10's
// schema, which the dependency's major pins); every write goes through its API (report-jobs.ts).
import { readOptions } from "@reportkit/core/adapter";
import { type ConnectionOptions, connection } from "@reportkit/postgres/connection";
import { bossOn } from "./boss-db.js";
import { progressOf, type StoredReportJobData, withProgress } from "./job-data.js";
import { CALL_TIMEOUT_MS, queueNameOf, schemaOf } from "./queue-options.js";
import { reportJobs } from "./report-jobs.js";

export interface QueueAdminOptions extends ConnectionOptions {
  /** The pg-boss queue. Default "reportkit". */
  queueName?: string;
  /** pg-boss's schema, as for `pgBossQueue`. Default "pgboss". */
  schema?: string;
}

/** A job kept as failed, as `reportkit queue failed` lists it. */
export interface FailedReportJob {
  readonly jobId: string;
  /** "delivery" or "call". */
  readonly type: string;
  /** The delivery report's `id`, or the call report's `mid`; null when it has none. */
  readonly reportId: string | null;
  readonly attemptsMade: number;
  /** The last attempt's error message. */
  readonly failedReason: string;
  readonly failedAt: Date | null;
}

export interface QueueAdmin {
  /** The failed jobs, most recent first. */
  failed(): Promise<FailedReportJob[]>;
  /**
   * Puts one failed job back in the queue, from a full set of retries. Rejects when there is no
   * such job or it is not failed.
   */
  retry(jobId: string): Promise<void>;
  /** Puts every failed job back; resolves with how many. */
  retryAll(): Promise<number>;
  close(): Promise<void>;
}

const PAGE = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FRESH = { failures: 0, firstFailedAt: undefined, parkedSince: undefined, parks: 0 };

interface FailedRow {
  id: string;
  data: StoredReportJobData | null;
  output: { message?: unknown; value?: { message?: unknown } } | null;
  retry_count: number;
  completed_on: Date | null;
}

/**
 * Looks after the jobs a pg-boss worker gave up on: list them, put them back (what `reportkit
 * queue failed|retry --db postgres://…` uses). Their reports are in the inbox's failure journal
 * too (`reportkit journal list`); a report processed after either is marked resolved there.
 *
 * @example
 * const admin = queueAdmin({ connectionString: process.env.DATABASE_URL });
 * for (const job of await admin.failed()) console.log(job.jobId, job.failedReason);
 * await admin.retryAll();
 * await admin.close();
 */
export function queueAdmin(options: QueueAdminOptions): QueueAdmin {
  const who = "queueAdmin";
  readOptions(who, options, {
    example: "queueAdmin({ connectionString: process.env.DATABASE_URL })",
    known: ["pool", "connectionString", "queueName", "schema"],
  });
  const name = queueNameOf(options.queueName, who);
  const schema = schemaOf(options.schema, who);
  const db = connection(who, options);
  const boss = bossOn(db, { schema, onError: () => {} });
  const jobs = reportJobs(db, boss, schema, name);
  const FAILED = `SELECT id, data, output, retry_count, completed_on FROM ${schema}.job
WHERE name = $1 AND state = 'failed' ORDER BY completed_on DESC, id LIMIT ${PAGE} OFFSET $2`;

  async function failedRows(): Promise<FailedRow[]> {
    const rows: FailedRow[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await db.query("reading the queue", FAILED, [name, offset], CALL_TIMEOUT_MS);
      rows.push(...(page.rows as FailedRow[]));
      if (page.rows.length < PAGE) return rows;
    }
  }

  /** Written again with its progress cleared: a full set of retries, at once. */
  const putBack = (row: Pick<FailedRow, "id" | "data">) =>
    jobs.rewrite(row.id, withProgress(row.data ?? {}, FRESH), 0);

  return {
    async failed() {
      return (await failedRows()).map(describeJob);
    },
    async retry(jobId) {
      const state = UUID.test(jobId) ? await jobs.stateOf(jobId) : null;
      if (state === null) {
        throw new Error(
          `${who}: no job "${jobId}" in queue "${name}"; \`reportkit queue failed\` lists the failed ones.`,
        );
      }
      if (state !== "failed") {
        throw new Error(
          `${who}: job "${jobId}" is ${state}, not failed; only failed jobs are put back.`,
        );
      }
      const { rows } = await db.query(
        "reading a job",
        `SELECT id, data FROM ${schema}.job WHERE name = $1 AND id = $2`,
        [name, jobId],
        CALL_TIMEOUT_MS,
      );
      await putBack(rows[0] as FailedRow);
    },
    async retryAll() {
      const rows = await failedRows();
      for (const row of rows) await putBack(row);
      return rows.length;
    },
    close: () => db.end(),
  };
}

function describeJob(row: FailedRow): FailedReportJob {
  const data = row.data ?? {};
  const report =
    typeof data.report === "object" && data.report !== null
      ? (data.report as Record<string, unknown>)
      : {};
  const type = typeof report.type === "string" ? report.type : "unknown";
  const id = type === "call" ? report.mid : report.id;
  const message = row.output?.message ?? row.output?.value?.message;
  return {
    jobId: row.id,
    type,
    reportId: typeof id === "string" ? id : null,
    attemptsMade: Math.max(1, progressOf(data).failures + row.retry_count),
    failedReason: typeof message === "string" ? message : "",
    failedAt: row.completed_on,
  };
}
