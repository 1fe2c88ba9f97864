// The failure journal in Redis: reports reportkit could not get processed (a handler that
// failed or timed out, a report refused after authentication), kept with their request so that
// `reportkit replay` can send them again once the cause is fixed. One hash per entry and one
// sorted set of keys by last seen; failed and refused entries expire `retentionMs` after they
// were last seen, resolved ones after RESOLVED_TTL_MS, and past `maxEntries` the oldest go.
// `list` reads the index a page at a time, never the whole journal for a few entries.
import type {
  JournalBodies,
  JournalEntry,
  JournalStatus,
  ReadableJournal,
} from "@reportkit/core/adapter";
import {
  type JournalLimits,
  journalLimits,
  journalQuery,
  readOptions,
} from "@reportkit/core/adapter";
import { REPORT_KINDS } from "@reportkit/wire";
import { listedKey, storedKey } from "@reportkit/wire/internal";
import { RECORD, RESOLVE } from "./lua-scripts.js";
import {
  checkConnection,
  FAIL_FAST,
  RENAMED_CONNECTION_OPTIONS,
  type RedisClient,
  type RedisConnection,
} from "./redis-connection.js";

export interface RedisJournalOptions {
  /**
   * Where Redis is, as for `redisDedupe`: a redis:// URL, ioredis options, `{ cluster: [...] }`
   * or an ioredis client (borrowed, never closed). From a URL, options or nodes the journal
   * opens a connection of its own, and `close()` closes it.
   */
  connection: RedisConnection;
  /** Put before the journal's keys: `redisDedupe`'s `journalPrefix`. Default "reportkit:journal:". */
  prefix?: string;
  /**
   * How long one call (a list, a resolve) may take before Redis counts as unreachable, in ms.
   * Default 5000: a tool's read of a whole journal, not a provider's request.
   */
  timeoutMs?: number;
  /** How long a failed or refused entry is kept after it was last seen, in ms. Default 14 days. */
  retentionMs?: number;
  /** How many entries are kept at most, the oldest dropped first. Default 100,000. */
  maxEntries?: number;
  /** `"full"` (default: what replay sends) or `"redacted"` (phone numbers never stored). */
  bodies?: JournalBodies;
}

/** Entries read per round trip by `list` with a status or kind filter (without: just the limit). */
const LIST_PAGE = 500;

export const DEFAULT_JOURNAL_PREFIX = "reportkit:journal:";
/** How long a resolved entry stays listed: a day, for `reportkit journal list --status resolved`. */
export const RESOLVED_TTL_MS = 24 * 60 * 60 * 1000;
/** How long one standalone journal call may take by default, in ms. */
export const DEFAULT_JOURNAL_TIMEOUT_MS = 5000;

/** Where an entry and the index live, by prefix. */
export function journalKeys(prefix: string): {
  entry: (key: string) => string;
  entryPrefix: string;
  index: string;
} {
  // Every key of the journal on one Redis Cluster slot (a script touches an entry and the
  // index together): hash-tagged, unless the prefix names a tag of its own.
  const tagged = prefix.includes("{") ? prefix : `${prefix}{journal}:`;
  const entryPrefix = `${tagged}entry:`;
  return { entry: (key) => entryPrefix + key, entryPrefix, index: `${tagged}index` };
}

/**
 * The failure journal on its own, for tools that read it (`redisDedupe` has one built in, as
 * `store.journal`).
 *
 * @example
 * import { redisJournal } from "@reportkit/redis";
 *
 * const journal = redisJournal({ connection: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" });
 * for (const entry of await journal.list({ status: "failed" })) {
 *   console.log(entry.key, entry.attempts, entry.lastError);
 * }
 * await journal.close();
 */
export function redisJournal(options: RedisJournalOptions): ReadableJournal {
  const who = "redisJournal";
  const read = readOptions(who, options, {
    example: `redisJournal({ connection: "redis://127.0.0.1:6379" })`,
    known: ["connection", "prefix", "timeoutMs", "retentionMs", "maxEntries", "bodies"],
    renamed: RENAMED_CONNECTION_OPTIONS,
  });
  const prefix = read.string("prefix", DEFAULT_JOURNAL_PREFIX);
  const timeoutMs = read.positiveMs("timeoutMs", DEFAULT_JOURNAL_TIMEOUT_MS);
  const limits = journalLimits(read, "");
  const redis = checkConnection(options.connection, who).open(FAIL_FAST);
  let closed = false;
  const call: RedisCall = (what, command) =>
    closed
      ? Promise.reject(new Error(`${who}: ${what} after close(); the journal is closed.`))
      : redis.call(what, timeoutMs, command);
  return {
    ...journalOn(redis.client, prefix, call, who, limits),
    async close() {
      if (closed) return;
      closed = true;
      await redis.close(timeoutMs);
    },
  };
}

/** Runs one Redis command for `what`, with the caller's timeout and error message. */
export type RedisCall = <T>(what: string, command: () => Promise<T>) => Promise<T>;

/**
 * The journal on a client the caller holds (redisDedupe shares its own with it), its calls
 * made through `call`; `who` names it in the refusals of a `list` filter.
 */
export function journalOn(
  client: RedisClient,
  prefix: string,
  call: RedisCall,
  who: string,
  limits: JournalLimits,
): Omit<ReadableJournal, "close"> {
  const keys = journalKeys(prefix);
  return {
    bodies: limits.bodies,
    async record(entry) {
      const { request } = entry;
      await call("keeping a report in the journal", async () => {
        const key = await storedKey(entry.key);
        return RECORD.run(
          client,
          [keys.entry(key), keys.index],
          [
            key,
            entry.kind ?? "",
            entry.status,
            request.method,
            request.url,
            request.contentType ?? "",
            request.body,
            request.bodyEncoding,
            String(entry.at.getTime()),
            `${entry.error.code}: ${entry.error.message}`,
            String(limits.retentionMs),
            String(limits.maxEntries),
            keys.entryPrefix,
          ],
        );
      });
    },
    async ping() {
      await call("ping", () => client.ping());
    },
    async list(filter) {
      const { statuses, kinds, since: after, limit } = journalQuery(`${who}.list`, filter);
      const since = after === undefined ? "-inf" : String(after.getTime());
      // Without a filter every entry read is listed: read just the limit.
      const filtered = statuses !== undefined || kinds !== undefined;
      const page = filtered ? Math.max(limit, LIST_PAGE) : limit;
      return call("listing the journal", async () => {
        const entries: JournalEntry[] = [];
        const gone: string[] = [];
        for (let offset = 0; entries.length < limit; offset += page) {
          const found = await client.zrangebyscore(
            keys.index,
            since,
            "+inf",
            "LIMIT",
            offset,
            page,
          );
          const pipeline = client.pipeline();
          for (const key of found) pipeline.hgetall(keys.entry(key));
          const hashes = found.length === 0 ? [] : ((await pipeline.exec()) ?? []);
          hashes.forEach(([error, hash], i) => {
            const fields = hash as Record<string, string> | undefined;
            if (error !== null || fields === undefined || fields.status === undefined) {
              gone.push(found[i] as string);
              return;
            }
            const entry = entryOf(fields);
            if (
              (statuses === undefined || statuses.includes(entry.status)) &&
              (kinds === undefined || (entry.kind !== null && kinds.includes(entry.kind)))
            ) {
              entries.push(entry);
            }
          });
          if (found.length < page) break;
        }
        // Entries that ran out leave their key in the index: tidied here.
        if (gone.length > 0) await client.zrem(keys.index, ...gone);
        return entries.slice(0, limit);
      });
    },
    async resolve(key) {
      const done = await call("resolving a journal entry", async () =>
        RESOLVE.run(client, keys.entry(await listedKey(key)), [String(RESOLVED_TTL_MS)]),
      );
      return done === 1;
    },
  };
}

function entryOf(fields: Record<string, string>): JournalEntry {
  const kind = REPORT_KINDS.find((known) => known === fields.kind);
  return {
    key: fields.key ?? "",
    kind: kind ?? null,
    status: fields.status as JournalStatus,
    request: {
      method: fields.method ?? "POST",
      url: fields.url ?? "/",
      contentType: fields.contentType === "" ? null : (fields.contentType ?? null),
      body: fields.body ?? "",
      bodyEncoding: fields.bodyEncoding === "base64" ? "base64" : "utf8",
    },
    firstSeen: new Date(Number(fields.firstSeen)),
    lastSeen: new Date(Number(fields.lastSeen)),
    attempts: Number(fields.attempts),
    lastError: fields.lastError ?? "",
  };
}
