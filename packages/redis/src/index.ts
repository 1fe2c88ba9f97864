export type { RedisConnection } from "./redis-connection.js";
export { type RedisDedupeStore, redisDedupe } from "./redis-dedupe.js";
export {
  DEFAULT_PREFIX,
  DEFAULT_TIMEOUT_MS,
  type RedisDedupeOptions,
} from "./redis-dedupe-options.js";
export {
  DEFAULT_JOURNAL_PREFIX,
  DEFAULT_JOURNAL_TIMEOUT_MS,
  RESOLVED_TTL_MS,
  type RedisJournalOptions,
  redisJournal,
} from "./redis-journal.js";
export type { RedisClusterNode } from "./redis-nodes.js";
