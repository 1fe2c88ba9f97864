import { readOptions, shown } from "@reportkit/core/adapter";
import {
  checkConnection,
  isCluster,
  type RedisClient,
  type RedisConnection,
} from "@reportkit/redis/connection";
import { Queue } from "bullmq";
import { CALL_TIMEOUT_MS, PRODUCER, queueNameOf, queuePrefixOf } from "./queue-options.js";

export interface QueueStatsOptions {
  /** Where Redis is: as for `bullmqQueue` (a URL, options, a cluster's nodes, a client). */
  connection: RedisConnection;
  /**
   * The queues to count. Default: every BullMQ queue found under `prefix` (by its `meta` key;
   * on a Redis Cluster without `prefix`, every hash-tagged one).
   */
  queueNames?: readonly string[];
  /** BullMQ's key prefix, as for `bullmqQueue`. */
  prefix?: string;
}

/** One queue's jobs by state, as `reportkit queue stats` prints them. */
export interface QueueStats {
  readonly queueName: string;
  readonly prefix: string;
  /** Waiting for a worker (prioritized ones included). */
  readonly waiting: number;
  /** Held by a worker now. */
  readonly active: number;
  /** Waiting for their retry's backoff to pass. */
  readonly delayed: number;
  /** Used up their attempts: `reportkit queue failed` lists them. */
  readonly failed: number;
  /** Done and kept (2 h by default, so a provider retry adds nothing). */
  readonly completed: number;
}

const SCAN_COUNT = 1000;

/**
 * How many jobs each queue holds, by state: waiting, active, delayed, failed, completed (what
 * `reportkit queue stats` prints). Fails fast with "unreachable" when Redis is down.
 *
 * @example
 * import { queueStats } from "@reportkit/bullmq";
 *
 * for (const q of await queueStats({ connection: "redis://127.0.0.1:6379" })) {
 *   console.log(q.queueName, q.waiting, q.failed);
 * }
 */
export async function queueStats(options: QueueStatsOptions): Promise<QueueStats[]> {
  const who = "queueStats";
  const read = readOptions(who, options, {
    example: `queueStats({ connection: "redis://127.0.0.1:6379" })`,
    known: ["connection", "queueNames", "prefix"],
  });
  const { queueNames } = options;
  if (queueNames !== undefined && !Array.isArray(queueNames)) {
    throw new TypeError(
      `${who}: \`queueNames\` must be a list of names, got ${shown(queueNames)}.`,
    );
  }
  const connection = checkConnection(options.connection, who);
  const named = queueNames?.map((queueName) => {
    const name = queueNameOf(queueName, who);
    return { name, prefix: queuePrefixOf(read, name, connection.isCluster) };
  });
  const redis = connection.open(PRODUCER);
  const call = <T>(what: string, command: () => Promise<T>) =>
    redis.call(what, CALL_TIMEOUT_MS, command);
  const { client } = redis;
  try {
    const queues =
      named ?? (await call("finding the queues", () => findQueues(client, options.prefix)));
    const stats: QueueStats[] = [];
    for (const { name, prefix } of queues) {
      const queue = new Queue(name, { connection: client, prefix });
      queue.on("error", () => {});
      try {
        const counts = await call("counting the jobs", () =>
          queue.getJobCounts("waiting", "prioritized", "active", "delayed", "failed", "completed"),
        );
        stats.push({
          queueName: name,
          prefix,
          waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
          active: counts.active ?? 0,
          delayed: counts.delayed ?? 0,
          failed: counts.failed ?? 0,
          completed: counts.completed ?? 0,
        });
      } finally {
        await queue.close();
      }
    }
    return stats.sort((a, b) =>
      a.queueName === b.queueName
        ? a.prefix.localeCompare(b.prefix)
        : a.queueName.localeCompare(b.queueName),
    );
  } finally {
    await redis.close(CALL_TIMEOUT_MS);
  }
}

/** Every queue by its "<prefix>:<name>:meta" key (BullMQ writes it when a queue starts). */
async function findQueues(
  client: RedisClient,
  prefix: string | undefined,
): Promise<{ name: string; prefix: string }[]> {
  const pattern = `${prefix === undefined ? (isCluster(client) ? "{*}" : "bull") : escapeGlob(prefix)}:*:meta`;
  const nodes = isCluster(client) ? client.nodes("master") : [client];
  const found = new Map<string, { name: string; prefix: string }>();
  for (const node of nodes) {
    let cursor = "0";
    do {
      const [next, keys] = await node.scan(cursor, "MATCH", pattern, "COUNT", SCAN_COUNT);
      cursor = next;
      for (const key of keys) {
        const rest = key.slice(0, -":meta".length);
        const colon = rest.lastIndexOf(":");
        if (colon <= 0) continue;
        found.set(rest, { prefix: rest.slice(0, colon), name: rest.slice(colon + 1) });
      }
    } while (cursor !== "0");
  }
  return [...found.values()];
}

/** A prefix as a literal in a SCAN pattern ("{reportkit}" has no glob meaning, "[" has). */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}
