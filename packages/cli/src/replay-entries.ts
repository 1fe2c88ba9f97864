// The walk of `reportkit replay` over the journal: every entry the filter names, page by page
// (a journal's `list` gives at most a page at once), each sent once, its entry resolved only
// when the receiver answered with reportkit's own reply.
import type { PushVerdict } from "@reportkit/client/internal";
import type { JournalEntry, JournalStatus, ReadableJournal } from "@reportkit/core/adapter";
import type { ReportKind } from "@reportkit/wire";

export type ReplayOutcome = PushVerdict["kind"] | "would-send";

export interface ReplaySummary {
  dryRun: boolean;
  /** False when it stopped before the last entry; `stopped` says why. */
  complete: boolean;
  /** Pages read from the journal. */
  pages: number;
  /** Entries sent (with `dryRun`, that would be), each once. */
  entries: number;
  /** The receiver ran its handler: reportkit's `{"ok":true}`. */
  processed: number;
  /** It had the report already: `{"ok":true,"duplicate":true}`. */
  duplicate: number;
  /** Queue mode took it: `{"ok":true,"queued":true}`. */
  queued: number;
  /** Anything else (another reply, no answer): the entry stays; listed in `failures`. */
  failed: number;
  failures: { key: string; httpStatus: number | null; reason: string; timedOut?: true }[];
  /** Why it stopped early, when it did. */
  stopped?: string;
}

export interface ReplayPlan {
  status: readonly JournalStatus[];
  /** Only entries of these kinds; undefined for any. */
  kind?: readonly ReportKind[];
  since: Date | undefined;
  concurrency: number;
  /** Sends one entry; undefined for a dry run. */
  send: ((entry: JournalEntry) => Promise<PushVerdict>) | undefined;
  /** Told of each entry once it is settled (sent and, if so, resolved). */
  onEntry: (entry: JournalEntry, verdict: PushVerdict | undefined) => void;
}

/** Entries asked for at once. */
export const PAGE_SIZE = 500;
// A page grows (doubling) only when more entries than it holds share one last-seen instant.
const MAX_PAGE_SIZE = 64_000;

/**
 * Replays every entry of `plan.status` (and `plan.kind`) last seen at or after `plan.since`,
 * oldest first. The
 * journal is read in pages keyed by last seen: the next page starts at the last entry's
 * instant, and an entry already taken is skipped (one that fails again is seen again, later:
 * the receiver's journal records the new attempt). A journal failure after the first page, or
 * a resolve that fails, stops it: `complete` false, `stopped` saying why; the entries not
 * replayed stay in the journal.
 * @throws the journal's error when the first page cannot be read (nothing was sent)
 */
export async function replayEntries(
  journal: ReadableJournal,
  plan: ReplayPlan,
): Promise<ReplaySummary> {
  const summary: ReplaySummary = {
    dryRun: plan.send === undefined,
    complete: false,
    pages: 0,
    entries: 0,
    processed: 0,
    duplicate: 0,
    queued: 0,
    failed: 0,
    failures: [],
  };
  const stop = (why: string) => {
    summary.stopped ??= why;
  };
  const seen = new Set<string>();
  let since = plan.since;
  let limit = PAGE_SIZE;
  while (summary.stopped === undefined) {
    let page: JournalEntry[];
    try {
      page = await journal.list({
        status: plan.status,
        ...(plan.kind && { kind: plan.kind }),
        ...(since && { since }),
        limit,
      });
      summary.pages += 1;
    } catch (error) {
      if (summary.pages === 0) throw error;
      stop(messageOf(error));
      break;
    }
    const fresh = page.filter((entry) => !seen.has(entry.key));
    const last = page.at(-1);
    if (last === undefined || (fresh.length === 0 && page.length < limit)) {
      summary.complete = true;
      break;
    }
    if (fresh.length === 0 && since !== undefined && last.lastSeen.getTime() <= since.getTime()) {
      // A full page of entries already taken, all last seen at the page's first instant:
      // more entries share that instant than a page holds. A bigger page gets past them.
      if (limit >= MAX_PAGE_SIZE) {
        stop(
          `more than ${limit} entries were last seen at ${last.lastSeen.toISOString()}, more than the journal gives at once`,
        );
        break;
      }
      limit = Math.min(limit * 2, MAX_PAGE_SIZE);
      continue;
    }
    for (const entry of fresh) seen.add(entry.key);
    await settleAll(fresh, plan, summary, journal, stop);
    since = last.lastSeen;
  }
  return summary;
}

/** Sends `entries`, `plan.concurrency` at once, taking no new one once stopped. */
async function settleAll(
  entries: readonly JournalEntry[],
  plan: ReplayPlan,
  summary: ReplaySummary,
  journal: ReadableJournal,
  stop: (why: string) => void,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (summary.stopped === undefined && next < entries.length) {
      const entry = entries[next++] as JournalEntry;
      summary.entries += 1;
      if (plan.send === undefined) {
        plan.onEntry(entry, undefined);
        continue;
      }
      const verdict = await plan.send(entry);
      summary[verdict.kind] += 1;
      if (verdict.kind === "failed") {
        const { status: httpStatus, reason, timedOut } = verdict;
        summary.failures.push({
          key: entry.key,
          httpStatus,
          reason,
          ...(timedOut && { timedOut }),
        });
      } else {
        // The report is processed now: the journal says so (its own commit did, if the key was
        // the report's; a refusal's entry is keyed by its body, so it is resolved here).
        try {
          await journal.resolve(entry.key);
        } catch (error) {
          stop(`marking ${entry.key} resolved failed: ${messageOf(error)}`);
        }
      }
      plan.onEntry(entry, verdict);
    }
  };
  await Promise.all(Array.from({ length: Math.min(plan.concurrency, entries.length) }, worker));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
