// The failure journal's read API, which the stores' journals implement and `reportkit journal`
// and `reportkit replay` use, and the one reading of its options and `list` filter.

import { REPORT_KINDS, type ReportKind } from "@reportkit/wire";
import { type OptionReader, readOptions, shown } from "../base/attorney.js";
import type { FailureJournal, JournalBodies, JournalEntry, JournalRecord } from "./dedupe-store.js";

export type JournalStatus = JournalEntry["status"];

/** Every status an entry can have, in the order a person reads them. */
export const JOURNAL_STATUSES: readonly JournalStatus[] = ["failed", "refused", "resolved"];

/** Which entries `list` gives: by status, by kind and by when they were last seen. */
export interface JournalFilter {
  /** One status or several; default every status. */
  status?: JournalStatus | readonly JournalStatus[];
  /** One kind of report or several (an entry of a body never identified has none); default any. */
  kind?: ReportKind | readonly ReportKind[];
  /** Only entries last seen at or after this time. */
  since?: Date;
  /** At most this many, the oldest first; default 1000. */
  limit?: number;
}

/** A failure journal the CLI can read and update (`postgresJournal()`, `inbox.journal`). */
export interface ReadableJournal extends FailureJournal {
  record(entry: JournalRecord): Promise<void>;
  ping(): Promise<void>;
  /** The kept entries, oldest last seen first. */
  list(filter?: JournalFilter): Promise<JournalEntry[]>;
  /** Marks an entry `resolved` (its report was processed); false when there is no such entry. */
  resolve(key: string): Promise<boolean>;
  /** Closes what the journal opened itself (a connection from a URL), never what it was given. */
  close(): Promise<void>;
}

/** How many entries `list` gives when the filter names no `limit`. */
export const DEFAULT_JOURNAL_LIMIT = 1000;

/** How long a journal keeps an entry past its last sighting by default: two weekends to replay. */
export const DEFAULT_JOURNAL_RETENTION_MS = 14 * 24 * 60 * 60 * 1000;

/** The most entries a journal keeps by default (oldest dropped): hours of an outage fit. */
export const DEFAULT_JOURNAL_MAX_ENTRIES = 100_000;

/** How a journal keeps its entries bounded: how long, how many, and with which bodies. */
export interface JournalLimits {
  readonly retentionMs: number;
  readonly maxEntries: number;
  readonly bodies: JournalBodies;
}

/** A journal's bounds from its options (`retentionMs`…; a store's `journalRetentionMs`…). */
export function journalLimits<O>(read: OptionReader<O>, prefix: "" | "journal"): JournalLimits {
  const name = (option: string) =>
    (prefix === "" ? option : `journal${option[0]?.toUpperCase()}${option.slice(1)}`) as keyof O &
      string;
  return {
    retentionMs: read.positiveMs(name("retentionMs"), DEFAULT_JOURNAL_RETENTION_MS),
    maxEntries: read.wholeNumber(name("maxEntries"), DEFAULT_JOURNAL_MAX_ENTRIES),
    bodies: read.oneOf(name("bodies"), ["full", "redacted"], "full"),
  };
}

/** A `list` filter as a journal queries by it: every field there, checked. */
export interface JournalQuery {
  /** The statuses to give, or undefined for every one. */
  readonly statuses: readonly JournalStatus[] | undefined;
  /** The kinds to give, or undefined for any (an entry without a kind included). */
  readonly kinds: readonly ReportKind[] | undefined;
  readonly since: Date | undefined;
  readonly limit: number;
}

/** A `list` filter, checked once for a journal's query. @throws TypeError naming the field */
export function journalQuery(who: string, given: JournalFilter | undefined): JournalQuery {
  const filter = given ?? {};
  const read = readOptions(who, filter, {
    example: `{ status: "failed", since: new Date(Date.now() - 3_600_000) }`,
    known: ["status", "kind", "since", "limit"],
  });
  const statuses = listOf(who, "status", filter.status, JOURNAL_STATUSES);
  const kinds = listOf(who, "kind", filter.kind, REPORT_KINDS);
  const { since } = filter;
  if (since !== undefined && (!(since instanceof Date) || Number.isNaN(since.getTime()))) {
    throw new TypeError(`${who}: \`since\` must be a valid Date, got ${shown(since)}.`);
  }
  const limit = read.wholeNumber("limit", DEFAULT_JOURNAL_LIMIT);
  return { statuses, kinds, since, limit };
}

/** One value or a list of them, each one of `allowed`. */
function listOf<T>(
  who: string,
  name: string,
  given: T | readonly T[] | undefined,
  allowed: readonly T[],
): T[] | undefined {
  if (given === undefined) return undefined;
  const list = [given].flat() as T[];
  for (const item of list) {
    if (!allowed.includes(item)) {
      throw new TypeError(
        `${who}: \`${name}\` must be ${allowed.join(", ")} or a list of them, got ${shown(item)}.`,
      );
    }
  }
  return list;
}
