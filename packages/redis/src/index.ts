export { type RedisDedupeStore, redisDedupe } from "./redis-dedupe.js";
export {
  DEFAULT_PREFIX,
  DEFAULT_TIMEOUT_MS,
  type RedisDedupeOptions,
} from "./redis-dedupe-options.js";
export {
  DEFAULT_JOURNAL_PREFIX,
  type JournalFilter,
  type JournalStatus,
  RESOLVED_TTL_MS,
  type RedisJournal,
  type RedisJournalOptions,
  redisJournal,
} from "./redis-journal.js";
