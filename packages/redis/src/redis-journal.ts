// The failure journal in Redis: reports reportkit could not get processed (a handler that
// failed or timed out, a report refused after authentication), kept with their request so that
// `reportkit replay` can send them again once the cause is fixed. One hash per entry and one
// sorted set of keys by last seen; failed and refused entries are kept until resolved, resolved
// ones for RESOLVED_TTL_MS.
import type { FailureJournal, JournalEntry, JournalRecord } from "@reportkit/core/adapter";
import { type Cluster, Redis } from "ioredis";
import { RECORD, RESOLVE } from "./lua-scripts.js";

export type JournalStatus = JournalEntry["status"];

/** Which entries `list` gives: by status and by when they were last seen. */
export interface JournalFilter {
  /** One status or several; default every status. */
  status?: JournalStatus | readonly JournalStatus[];
  /** Only entries last seen at or after this time. */
  since?: Date;
  /** At most this many, the oldest first; default 1000. */
  limit?: number;
}

/** A failure journal you can also read and update: what `reportkit journal` and `replay` use. */
export interface RedisJournal extends FailureJournal {
  record(entry: JournalRecord): Promise<void>;
  ping(): Promise<void>;
  /** The kept entries, oldest last seen first. */
  list(filter?: JournalFilter): Promise<JournalEntry[]>;
  /** Marks an entry `resolved` (its report was processed); false when there is no such entry. */
  resolve(key: string): Promise<boolean>;
  /** Closes the connection the journal opened from `url` (a borrowed client stays open). */
  close(): Promise<void>;
}

export interface RedisJournalOptions {
  /** e.g. redis://127.0.0.1:6379: the journal opens (and closes) a connection of its own. */
  url?: string;
  /** An ioredis client you already have: borrowed, never closed. */
  client?: Redis;
  /** Put before the journal's keys. Default "reportkit:journal:". */
  prefix?: string;
}

export const DEFAULT_JOURNAL_PREFIX = "reportkit:journal:";
/** How long a resolved entry stays listed: a day, for `reportkit journal list --status resolved`. */
export const RESOLVED_TTL_MS = 24 * 60 * 60 * 1000;
const DEFAULT_LIMIT = 1000;

/** Where an entry and the index live, by prefix. */
export function journalKeys(prefix: string): { entry: (key: string) => string; index: string } {
  // Every key of the journal on one Redis Cluster slot (a script touches an entry and the
  // index together): hash-tagged, unless the prefix names a tag of its own.
  const tagged = prefix.includes("{") ? prefix : `${prefix}{journal}:`;
  return { entry: (key) => `${tagged}entry:${key}`, index: `${tagged}index` };
}

/**
 * The failure journal on its own, for tools that read it (`redisDedupe` has one built in, as
 * `store.journal`).
 *
 * @example
 * import { redisJournal } from "@reportkit/redis";
 *
 * const journal = redisJournal({ url: process.env.REDIS_URL });
 * for (const entry of await journal.list({ status: "failed" })) {
 *   console.log(entry.key, entry.attempts, entry.lastError);
 * }
 * await journal.close();
 */
export function redisJournal(options: RedisJournalOptions): RedisJournal {
  const { url, client: given } = options;
  if ((url === undefined) === (given === undefined)) {
    throw new TypeError(
      "redisJournal: give `url` (e.g. 'redis://127.0.0.1:6379') or `client`, one of them.",
    );
  }
  const client = given ?? new Redis(url as string, { maxRetriesPerRequest: 1, lazyConnect: false });
  if (given === undefined) client.on("error", () => {});
  const journal = journalOn(client, options.prefix ?? DEFAULT_JOURNAL_PREFIX, (_what, command) =>
    command(),
  );
  return {
    ...journal,
    async close() {
      if (given === undefined) client.disconnect();
    },
  };
}

/** Runs one Redis command for `what`, with the caller's timeout and error message. */
export type RedisCall = <T>(what: string, command: () => Promise<T>) => Promise<T>;

/** The journal on a client the caller holds (redisDedupe shares its own with it). */
export function journalOn(
  client: Redis | Cluster,
  prefix: string,
  call: RedisCall,
): Omit<RedisJournal, "close"> {
  const keys = journalKeys(prefix);
  return {
    async record(entry) {
      const { request } = entry;
      await call("keeping a report in the journal", () =>
        RECORD.run(
          client,
          [keys.entry(entry.key), keys.index],
          [
            entry.key,
            entry.kind ?? "",
            entry.status,
            request.method,
            request.url,
            request.contentType ?? "",
            request.body,
            request.bodyEncoding,
            String(entry.at.getTime()),
            `${entry.error.code}: ${entry.error.message}`,
          ],
        ),
      );
    },
    async ping() {
      await call("ping", () => client.ping());
    },
    async list(filter = {}) {
      const since = filter.since === undefined ? "-inf" : String(filter.since.getTime());
      const statuses = filter.status === undefined ? undefined : [filter.status].flat();
      const limit = filter.limit ?? DEFAULT_LIMIT;
      return call("listing the journal", async () => {
        const found = await client.zrangebyscore(keys.index, since, "+inf");
        const entries: JournalEntry[] = [];
        const gone: string[] = [];
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
          if (statuses === undefined || statuses.includes(entry.status)) entries.push(entry);
        });
        // Resolved entries that ran out leave their key in the index: tidied here.
        if (gone.length > 0) await client.zrem(keys.index, ...gone);
        return entries.slice(0, limit);
      });
    },
    async resolve(key) {
      const done = await call("resolving a journal entry", () =>
        RESOLVE.run(client, keys.entry(key), [String(RESOLVED_TTL_MS)]),
      );
      return done === 1;
    },
  };
}

function entryOf(fields: Record<string, string>): JournalEntry {
  const kind = fields.kind;
  return {
    key: fields.key ?? "",
    kind: kind === "delivery" || kind === "call" ? kind : null,
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
