import type { RedisConnection } from "@reportkit/redis";

/**
 * A Redis as the CLI takes it (`--redis`, `--db`, the environment): one URL is one Redis;
 * several, comma-separated, are a Redis Cluster's nodes.
 */
export function redisConnectionOf(text: string): RedisConnection {
  const urls = text.split(",").map((part) => part.trim());
  return urls.length === 1 ? text : { cluster: urls };
}
