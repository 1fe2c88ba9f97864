import { createHash } from "node:crypto";
import type { Cluster, Redis } from "ioredis";

/**
 * A Lua script run with EVALSHA, falling back to EVAL when the server does not know it yet
 * (first use, or after a restart or SCRIPT FLUSH): one round trip in the steady state, and
 * nothing added to the client (no `defineCommand` on a client the caller may share). Each script
 * touches only its one key, so on a Redis Cluster it runs on the node of that key's slot.
 */
export interface LuaScript {
  run(client: Redis | Cluster, key: string, args: readonly string[]): Promise<unknown>;
}

export function luaScript(source: string): LuaScript {
  const sha = createHash("sha1").update(source).digest("hex");
  return {
    async run(client, key, args) {
      try {
        return await client.evalsha(sha, 1, key, ...args);
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
        return await client.eval(source, 1, key, ...args);
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
