import { createHash } from "node:crypto";
import type { Cluster, Redis } from "ioredis";

/**
 * A Lua script run with EVALSHA, falling back to EVAL when the server does not know it yet
 * (first use, or after a restart or SCRIPT FLUSH): one round trip in the steady state, and
 * nothing added to the client (no `defineCommand` on a client the caller may share). Each script
 * touches only its one key, so on a Redis Cluster it runs on the node of that key's slot.
 */
export interface LuaScript {
  /** Runs the script on one key, or on several (all of them in KEYS, in order, on one slot). */
  run(
    client: Redis | Cluster,
    keys: string | readonly string[],
    args: readonly string[],
  ): Promise<unknown>;
}

export function luaScript(source: string): LuaScript {
  const sha = createHash("sha1").update(source).digest("hex");
  return {
    async run(client, keys, args) {
      const list = typeof keys === "string" ? [keys] : keys;
      try {
        return await client.evalsha(sha, list.length, ...list, ...args);
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
        return await client.eval(source, list.length, ...list, ...args);
      }
    },
  };
}

/** What a finished report's key holds. A lease holds LEASE_PREFIX + owner, never this. */
export const DONE = "done";
/** Prefixes the owner in a lease's value, so that no owner string can read as DONE. */
export const LEASE_PREFIX = "lease:";

/**
 * claim(KEYS[1] = key, ARGV[1] = lease value, ARGV[2] = lease ms) -> "claimed" | "done" | "busy",
 * in one step: of any number of concurrent claims exactly one sets the lease.
 */
export const CLAIM = luaScript(`
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 'claimed' end
if redis.call('GET', KEYS[1]) == '${DONE}' then return 'done' end
return 'busy'
`);

/**
 * release(KEYS[1] = key, ARGV[1] = lease value) -> 1 when freed, 0 when the key is no longer
 * this owner's (its lease ran out and another attempt claimed it, or it is done).
 */
export const RELEASE = luaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/**
 * complete(KEYS[1] = key, KEYS[2] = the key's journal entry, ARGV[1] = ttl ms, ARGV[2] = how
 * long a resolved entry is kept, ms): marks the key done and, when an earlier attempt of the
 * report was kept in the failure journal, marks that entry resolved in the same step.
 */
export const COMPLETE = luaScript(`
redis.call('SET', KEYS[1], '${DONE}', 'PX', ARGV[1])
if redis.call('HEXISTS', KEYS[2], 'status') == 1 and redis.call('HGET', KEYS[2], 'status') ~= 'resolved' then
  redis.call('HSET', KEYS[2], 'status', 'resolved')
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
return 1
`);

/**
 * record(KEYS[1] = entry, KEYS[2] = index by last seen; ARGV = key, kind, status, method, url,
 * content type, body, body encoding, at ms, last error, retention ms, max entries, what every
 * entry's name starts with) -> attempts: adds an entry (first seen = last seen = at, attempts 1)
 * or updates a kept one (attempts + 1), in one step. The entry expires `retention` after it was
 * last seen (at once, if that is past); the index forgets what is older than that, and past
 * `max entries` the oldest entries are deleted (all on the journal's one slot).
 */
export const RECORD = luaScript(`
local at = tonumber(ARGV[9])
local last = tonumber(redis.call('HGET', KEYS[1], 'lastSeen') or '0')
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('HSET', KEYS[1], 'firstSeen', ARGV[9]) end
if at > last then last = at end
local attempts = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
redis.call('HSET', KEYS[1], 'key', ARGV[1], 'kind', ARGV[2], 'status', ARGV[3], 'method', ARGV[4],
  'url', ARGV[5], 'contentType', ARGV[6], 'body', ARGV[7], 'bodyEncoding', ARGV[8],
  'lastSeen', tostring(last), 'lastError', ARGV[10])
redis.call('PEXPIREAT', KEYS[1], tostring(last + tonumber(ARGV[11])))
redis.call('ZADD', KEYS[2], last, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. tostring(at - tonumber(ARGV[11])))
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[12])
if over > 0 then
  local oldest = redis.call('ZPOPMIN', KEYS[2], over)
  for i = 1, #oldest, 2 do redis.call('DEL', ARGV[13] .. oldest[i]) end
end
return attempts
`);

/** resolve(KEYS[1] = entry, ARGV[1] = how long a resolved entry is kept, ms) -> 1, or 0 if none. */
export const RESOLVE = luaScript(`
if redis.call('HEXISTS', KEYS[1], 'status') == 0 then return 0 end
redis.call('HSET', KEYS[1], 'status', 'resolved')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`);
