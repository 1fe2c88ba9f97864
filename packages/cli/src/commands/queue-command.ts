import type { FailedReportJob, QueueAdmin, QueueStats, RedisConnection } from "@reportkit/bullmq";
import type { Command } from "commander";
import { CliError, type CliIo } from "../io.js";
import { BULLMQ, loadOptional, PG_BOSS } from "../optional-package.js";
import { redisConnectionOf } from "../redis-url.js";
import { formatTable } from "../table.js";

interface QueueFlags {
  redis?: string;
  db?: string;
  queue?: string;
  prefix?: string;
  schema?: string;
  json?: boolean;
}

/** Where the queue is: BullMQ on Redis, or pg-boss on Postgres. */
type QueueStore =
  | { kind: "bullmq"; connection: RedisConnection }
  | { kind: "pg-boss"; connectionString: string };

/** What the commands use of either package's `queueAdmin`. */
type Admin = Pick<QueueAdmin, "failed" | "retry" | "retryAll" | "close">;

/** `reportkit queue stats|failed|retry`: queue mode's jobs, and the ones a worker gave up on. */
export function queueCommand(queue: Command, io: CliIo): Command {
  queue.description(
    "look after queue mode (BullMQ with --redis, pg-boss with --db): jobs per state, and the failed jobs (reports whose handler used up its retries)",
  );

  storeOptions(queue.command("stats"))
    .description("count each queue's jobs: waiting, active, delayed, failed, completed")
    .option("--queue <name>", "only this queue (default: every queue found)")
    .action(async (flags: QueueFlags) => {
      const store = storeOf(flags, io);
      const stats = await statsOf(store, flags);
      if (flags.json) {
        io.stdout(`${JSON.stringify({ data: stats }, null, 2)}\n`);
        return;
      }
      if (stats.length === 0) {
        io.stdout(
          store.kind === "pg-boss"
            ? `no queues in the schema ${flags.schema ?? "pgboss"}\n`
            : `no queues under the prefix ${flags.prefix ?? "bull (or a hash tag)"}\n`,
        );
        return;
      }
      io.stdout(`${statsTable(stats)}\n`);
    });

  withQueue(queue.command("failed"))
    .description("list the failed jobs: id, report, attempts, last error")
    .action(async (flags: QueueFlags) => {
      await withAdmin(flags, io, async (admin) => {
        const jobs = await admin.failed();
        if (flags.json) {
          io.stdout(`${JSON.stringify({ data: jobs }, null, 2)}\n`);
          return;
        }
        if (jobs.length === 0) {
          io.stdout("no failed jobs\n");
          return;
        }
        io.stdout(
          `${failedTable(jobs)}\n${jobs.length} failed job${jobs.length === 1 ? "" : "s"}\n`,
        );
      });
    });

  withQueue(queue.command("retry"))
    .description(
      "put a failed job (or --all of them) back in the queue, with a full set of attempts",
    )
    .argument("[jobId]", "the job to put back, as `reportkit queue failed` lists it")
    .option("--all", "every failed job")
    .action(async (jobId: string | undefined, flags: QueueFlags & { all?: boolean }) => {
      if (jobId !== undefined && flags.all) {
        throw new CliError("give a job id or --all, not both.");
      }
      if (jobId === undefined && !flags.all) {
        throw new CliError(
          "give the job id to put back (see `reportkit queue failed`), or --all for every failed job.",
        );
      }
      await withAdmin(flags, io, async (admin) => {
        if (jobId !== undefined) {
          await admin.retry(jobId);
          if (flags.json) io.stdout(`${JSON.stringify({ retried: [jobId] })}\n`);
          else io.stdout(`Put back job ${jobId}\n`);
          return;
        }
        const count = await admin.retryAll();
        if (flags.json) io.stdout(`${JSON.stringify({ retried: count })}\n`);
        else io.stdout(`Put back ${count} failed job${count === 1 ? "" : "s"}\n`);
      });
    });

  return queue;
}

function storeOptions(command: Command): Command {
  // The environment is read in storeOf(), from the injected io, not by commander.
  return command
    .option(
      "--redis <url>",
      "BullMQ's Redis, e.g. redis://127.0.0.1:6379; a Redis Cluster's nodes comma-separated (env: REPORTKIT_REDIS_URL)",
    )
    .option(
      "--db <url>",
      "pg-boss's Postgres, e.g. postgres://user:password@127.0.0.1:5432/app (env: REPORTKIT_DB_URL, when no Redis is given)",
    )
    .option(
      "--prefix <prefix>",
      'BullMQ\'s key prefix, as the receiver\'s (default "bull"; on a cluster "{<queue>}")',
    )
    .option("--schema <schema>", "pg-boss's schema, as the receiver's (default \"pgboss\")")
    .option("--json", "print JSON instead of a table");
}

function withQueue(command: Command): Command {
  return storeOptions(command).option("--queue <name>", "the queue name", "reportkit");
}

/**
 * The queue the flags name: --redis (BullMQ) or --db (pg-boss); else REPORTKIT_REDIS_URL, else a
 * postgres:// REPORTKIT_DB_URL.
 */
function storeOf(flags: QueueFlags, io: CliIo): QueueStore {
  if (flags.redis !== undefined && flags.db !== undefined) {
    throw new CliError("give --redis (a BullMQ queue) or --db (a pg-boss queue), not both.");
  }
  const redis = flags.db === undefined ? (flags.redis ?? io.env.REPORTKIT_REDIS_URL) : undefined;
  const store: QueueStore | undefined =
    redis !== undefined && redis !== ""
      ? { kind: "bullmq", connection: redisConnectionOf(redis) }
      : postgresOf(flags.db ?? io.env.REPORTKIT_DB_URL, flags.db !== undefined);
  if (store === undefined) {
    throw new CliError(
      "no queue: pass --redis (BullMQ, or set REPORTKIT_REDIS_URL, e.g. redis://127.0.0.1:6379) or --db (pg-boss, or set REPORTKIT_DB_URL, e.g. postgres://user:password@127.0.0.1:5432/app).",
    );
  }
  if (store.kind === "bullmq" && flags.schema !== undefined) {
    throw new CliError("--schema is pg-boss's (with --db); a BullMQ queue has --prefix.");
  }
  if (store.kind === "pg-boss" && flags.prefix !== undefined) {
    throw new CliError("--prefix is BullMQ's (with --redis); a pg-boss queue has --schema.");
  }
  return store;
}

function postgresOf(url: string | undefined, given: boolean): QueueStore | undefined {
  if (url === undefined || url === "") return undefined;
  if (!/^postgres(ql)?:\/\//.test(url)) {
    // REPORTKIT_DB_URL may name a Redis journal: then it is no pg-boss queue.
    if (!given) return undefined;
    throw new CliError("--db must start with postgres:// or postgresql://.");
  }
  return { kind: "pg-boss", connectionString: url };
}

async function statsOf(store: QueueStore, flags: QueueFlags): Promise<QueueStats[]> {
  const queueNames = flags.queue === undefined ? {} : { queueNames: [flags.queue] };
  // Loaded here, not at start-up: the other commands need neither queue package nor driver.
  if (store.kind === "pg-boss") {
    const { queueStats } = await loadOptional(PG_BOSS, () => import("@reportkit/pg-boss"));
    const stats = await queueStats({
      connectionString: store.connectionString,
      ...queueNames,
      ...(flags.schema === undefined ? {} : { schema: flags.schema }),
    });
    return stats.map(({ schema, ...counts }) => ({ ...counts, prefix: schema }));
  }
  const { queueStats } = await loadOptional(BULLMQ, () => import("@reportkit/bullmq"));
  return queueStats({
    connection: store.connection,
    ...queueNames,
    ...(flags.prefix === undefined ? {} : { prefix: flags.prefix }),
  });
}

async function withAdmin(
  flags: QueueFlags,
  io: CliIo,
  run: (admin: Admin) => Promise<void>,
): Promise<void> {
  const store = storeOf(flags, io);
  // Loaded here, not at start-up: the other commands need neither queue package nor driver.
  let admin: Admin;
  if (store.kind === "pg-boss") {
    const { queueAdmin } = await loadOptional(PG_BOSS, () => import("@reportkit/pg-boss"));
    admin = queueAdmin({
      connectionString: store.connectionString,
      queueName: flags.queue,
      ...(flags.schema === undefined ? {} : { schema: flags.schema }),
    });
  } else {
    const { queueAdmin } = await loadOptional(BULLMQ, () => import("@reportkit/bullmq"));
    admin = queueAdmin({
      connection: store.connection,
      queueName: flags.queue,
      ...(flags.prefix === undefined ? {} : { prefix: flags.prefix }),
    });
  }
  try {
    await run(admin);
  } finally {
    await admin.close();
  }
}

function when(date: Date | null): string {
  return date === null ? "-" : `${date.toISOString().slice(0, 19).replace("T", " ")}Z`;
}

function statsTable(stats: readonly QueueStats[]): string {
  // The prefix column only when it tells queues apart.
  const prefixes = new Set(stats.map((q) => q.prefix));
  const withPrefix = prefixes.size > 1;
  return formatTable(
    [
      ...(withPrefix ? ["PREFIX"] : []),
      "QUEUE",
      "WAITING",
      "ACTIVE",
      "DELAYED",
      "FAILED",
      "COMPLETED",
    ],
    stats.map((q) => [
      ...(withPrefix ? [q.prefix] : []),
      q.queueName,
      String(q.waiting),
      String(q.active),
      String(q.delayed),
      String(q.failed),
      String(q.completed),
    ]),
  );
}

function failedTable(jobs: readonly FailedReportJob[]): string {
  return formatTable(
    ["JOB ID", "TYPE", "REPORT", "ATTEMPTS", "FAILED AT", "LAST ERROR"],
    jobs.map((job) => [
      job.jobId,
      job.type,
      job.reportId ?? "-",
      String(job.attemptsMade),
      when(job.failedAt),
      job.failedReason.replace(/\s+/g, " "),
    ]),
  );
}
