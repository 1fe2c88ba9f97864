import type { FailedReportJob, QueueAdmin, QueueStats, RedisConnection } from "@reportkit/bullmq";
import type { Command } from "commander";
import { CliError, type CliIo } from "../io.js";
import { BULLMQ, loadOptional } from "../optional-package.js";
import { redisConnectionOf } from "../redis-url.js";
import { formatTable } from "../table.js";

interface QueueFlags {
  redis?: string;
  queue?: string;
  prefix?: string;
  json?: boolean;
}

/** `reportkit queue stats|failed|retry`: queue mode's jobs, and the ones a worker gave up on. */
export function queueCommand(queue: Command, io: CliIo): Command {
  queue.description(
    "look after queue mode: jobs per state, and the failed jobs (reports whose handler used up its attempts)",
  );

  redisOptions(queue.command("stats"))
    .description("count each queue's jobs: waiting, active, delayed, failed, completed")
    .option("--queue <name>", "only this queue (default: every queue found under the prefix)")
    .action(async (flags: QueueFlags) => {
      const connection = connectionOf(flags, io);
      // Loaded here, not at start-up: the other commands need neither BullMQ nor ioredis.
      const { queueStats } = await loadOptional(BULLMQ, () => import("@reportkit/bullmq"));
      const stats = await queueStats({
        connection,
        ...(flags.queue === undefined ? {} : { queueNames: [flags.queue] }),
        ...(flags.prefix === undefined ? {} : { prefix: flags.prefix }),
      });
      if (flags.json) {
        io.stdout(`${JSON.stringify({ data: stats }, null, 2)}\n`);
        return;
      }
      if (stats.length === 0) {
        io.stdout(`no queues under the prefix ${flags.prefix ?? "bull (or a hash tag)"}\n`);
        return;
      }
      io.stdout(`${statsTable(stats)}\n`);
    });

  withRedis(queue.command("failed"))
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

  withRedis(queue.command("retry"))
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

function redisOptions(command: Command): Command {
  // The environment is read in connectionOf(), from the injected io, not by commander.
  return command
    .option(
      "--redis <url>",
      "the queue's Redis, e.g. redis://127.0.0.1:6379; a Redis Cluster's nodes comma-separated (env: REPORTKIT_REDIS_URL)",
    )
    .option(
      "--prefix <prefix>",
      'BullMQ\'s key prefix, as the receiver\'s (default "bull"; on a cluster "{<queue>}")',
    )
    .option("--json", "print JSON instead of a table");
}

function withRedis(command: Command): Command {
  return redisOptions(command).option("--queue <name>", "the BullMQ queue name", "reportkit");
}

function connectionOf(flags: QueueFlags, io: CliIo): RedisConnection {
  const url = flags.redis ?? io.env.REPORTKIT_REDIS_URL;
  if (url === undefined || url === "") {
    throw new CliError(
      "no Redis URL: pass --redis or set REPORTKIT_REDIS_URL (e.g. redis://127.0.0.1:6379).",
    );
  }
  return redisConnectionOf(url);
}

async function withAdmin(
  flags: QueueFlags,
  io: CliIo,
  run: (admin: QueueAdmin) => Promise<void>,
): Promise<void> {
  const connection = connectionOf(flags, io);
  // Loaded here, not at start-up: the other commands need neither BullMQ nor ioredis.
  const { queueAdmin } = await loadOptional(BULLMQ, () => import("@reportkit/bullmq"));
  const admin = queueAdmin({
    connection,
    queueName: flags.queue,
    ...(flags.prefix === undefined ? {} : { prefix: flags.prefix }),
  });
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
