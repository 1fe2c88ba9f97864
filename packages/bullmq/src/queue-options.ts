// What the queue, the worker and the tools share besides their connection to Redis (that one
// is @reportkit/redis/connection's): the queue's name and key prefix, and the bounds of their
// Redis calls.
import type { OptionReader } from "@reportkit/core/adapter";

/** The default queue name: the receiver and the worker must use the same one. */
export const DEFAULT_QUEUE_NAME = "reportkit";

/**
 * How long one Redis call of the queue or its tools (an add, a ping, a page of failed jobs),
 * the wait for a connection under way included, may take before Redis counts as unreachable.
 * Past the receiver's answer deadline (8 s by default), so the receiver's own bound speaks
 * first for a report.
 */
export const CALL_TIMEOUT_MS = 10_000;

/**
 * The connection of the queue and the tools: no offline queue, so an add while Redis is down fails at once
 * instead of waiting (unbounded) for a reconnection; the receiver answers 503 then and the
 * provider retries later.
 */
export const PRODUCER = { enableOfflineQueue: false, maxRetriesPerRequest: 1 } as const;

/** Validates a queue name once (BullMQ forbids ":" in it; Redis keys are built from it). */
export function queueNameOf(queueName: unknown, who: string): string {
  if (queueName === undefined) return DEFAULT_QUEUE_NAME;
  if (typeof queueName !== "string" || queueName === "" || queueName.includes(":")) {
    throw new TypeError(
      `${who}: \`queueName\` must be a non-empty string without ":", got ${JSON.stringify(queueName)}.`,
    );
  }
  return queueName;
}

/**
 * BullMQ's key prefix. Every key of a queue is "<prefix>:<queue name>:…", and BullMQ's Lua
 * scripts touch several of them at once, so on a Redis Cluster they must all hash to one slot:
 * the prefix (or the queue name) must hold a hash tag. The default there is "{<queue name>}"
 * (each queue on one slot, different queues spread over the cluster); on one Redis "bull".
 */
export function queuePrefixOf(
  read: OptionReader<{ prefix?: string }>,
  queueName: string,
  onCluster: boolean,
): string {
  const fallback = onCluster ? `{${queueName}}` : "bull";
  const chosen = read.string("prefix", fallback, { nonEmpty: true });
  if (onCluster && !hasHashTag(`${chosen}:${queueName}`)) {
    throw new TypeError(
      `${read.who}: on a Redis Cluster every key of a queue must be on one slot, so \`prefix\` needs a hash tag, e.g. "{${queueName}}" (got ${JSON.stringify(chosen)}); the receiver, the worker and \`reportkit queue\` must use the same.`,
    );
  }
  return chosen;
}

/** Whether Redis Cluster hashes `key` by a tag: a "{", later a "}", something between. */
function hasHashTag(key: string): boolean {
  const open = key.indexOf("{");
  if (open === -1) return false;
  const close = key.indexOf("}", open + 1);
  return close > open + 1;
}
