// @reportkit/redis/connection: the one way to Redis of reportkit's Redis packages, for
// @reportkit/bullmq and other packages built on reportkit. Apps pass a `connection` option and
// need nothing from here.
export {
  type CheckedConnection,
  checkConnection,
  describeRedis,
  FAIL_FAST,
  isCluster,
  type RedisClient,
  type RedisConnection,
  type RedisHandle,
} from "./redis-connection.js";
export {
  type RedisClusterNode,
  type ResolvedClusterNodes,
  resolveClusterNodes,
} from "./redis-nodes.js";
