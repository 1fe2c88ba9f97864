import type { JournalEntry } from "@reportkit/core/adapter";
import type { Command } from "commander";
import type { CliIo } from "../io.js";
import { count, filterOf, type JournalFlags, withDb, withJournal } from "../journal-database.js";
import { formatTable, oneLine } from "../table.js";

interface ListFlags extends JournalFlags {
  json?: boolean;
}

/** `reportkit journal list`: the reports the receiver could not get processed. */
export function journalCommand(journal: Command, io: CliIo): Command {
  journal.description(
    "read the failure journal: reports a receiver could not get processed (postgresInbox, redisDedupe)",
  );
  withDb(journal.command("list"))
    .description(
      "list the kept reports: key, kind, status, attempts, first and last seen, last error",
    )
    .option("--status <status>", "failed, refused or resolved (comma-separated for several)")
    .option("--json", "print JSON instead of a table")
    .action(async (flags: ListFlags) => {
      await withJournal(flags, io, async (kept) => {
        const entries = await kept.list(filterOf(flags));
        if (flags.json) {
          io.stdout(`${JSON.stringify({ data: entries }, null, 2)}\n`);
          return;
        }
        io.stdout(`${entryTable(entries)}\n${count(entries.length, "entry", "entries")}\n`);
      });
    });
  return journal;
}

function when(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace("T", " ")}Z`;
}

function entryTable(entries: readonly JournalEntry[]): string {
  if (entries.length === 0) return "(no entries)";
  return formatTable(
    ["KEY", "KIND", "STATUS", "ATTEMPTS", "FIRST SEEN", "LAST SEEN", "LAST ERROR"],
    entries.map((entry) => [
      entry.key,
      entry.kind ?? "-",
      entry.status,
      String(entry.attempts),
      when(entry.firstSeen),
      when(entry.lastSeen),
      oneLine(entry.lastError, 120),
    ]),
  );
}
