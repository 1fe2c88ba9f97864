export { type RedisDedupeStore, redisDedupe } from "./redis-dedupe.js";
export {
  DEFAULT_PREFIX,
  DEFAULT_TIMEOUT_MS,
  type RedisDedupeOptions,
} from "./redis-dedupe-options.js";
