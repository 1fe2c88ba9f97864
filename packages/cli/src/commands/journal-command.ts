import type {
  JournalEntry,
  JournalFilter,
  JournalStatus,
  ReadableJournal,
} from "@reportkit/core/adapter";
import type { Command } from "commander";
import { parseDuration } from "../duration.js";
import { CliError, type CliIo } from "../io.js";
import { loadOptional, POSTGRES, REDIS } from "../optional-package.js";
import { redactToken } from "../redact-token.js";
import { redisConnectionOf } from "../redis-url.js";
import { formatTable, oneLine } from "../table.js";
import { type SecretFlags, secretOf, withSecretOptions } from "../webhook-secret.js";

// Type-checked against the journal's own statuses (a new one would not compile here); a value
// of the CLI's, since @reportkit/core is no runtime dependency of it.
const STATUSES = Object.keys({
  failed: true,
  refused: true,
  resolved: true,
} satisfies Record<JournalStatus, true>) as JournalStatus[];

interface ListFlags {
  db?: string;
  status?: string;
  since?: string;
  json?: boolean;
}

interface ReplayFlags extends ListFlags, SecretFlags {
  to?: string;
  dryRun?: boolean;
  concurrency?: string;
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
    .action(async (flags: ListFlags) => {
      await withJournal(flags, io, async (kept) => {
        const entries = await kept.list(filterOf(flags, undefined));
        if (flags.json) {
          io.stdout(`${JSON.stringify({ data: entries }, null, 2)}\n`);
          return;
        }
        io.stdout(`${entryTable(entries)}\n${count(entries.length, "entry", "entries")}\n`);
      });
    });
  return journal;
}

/** `reportkit replay`: sends kept reports to the receiver again, as the provider would. */
export function replayCommand(replay: Command, io: CliIo): Command {
  withDb(replay)
    .description(
      "send the kept reports (failed ones by default) to your receiver again, as the provider would, once the cause is fixed",
    )
    .option("--to <url>", "the receiver: an origin (the kept path is used) or a full URL");
  return withSecretOptions(replay)
    .option("--status <status>", "failed or refused (comma-separated for both)", "failed")
    .option("--dry-run", "list what would be sent, send nothing")
    .option("--concurrency <n>", "how many requests at once", "4")
    .action(async (flags: ReplayFlags) => {
      const to = flags.to;
      if (to === undefined)
        throw new CliError("give --to, the receiver's URL (e.g. http://127.0.0.1:3000).");
      let base: URL;
      try {
        base = new URL(to);
      } catch {
        throw new CliError(
          `--to must be a URL such as http://127.0.0.1:3000/webhooks; got "${to}".`,
        );
      }
      const secret = secretOf(flags, io.env);
      if (!flags.dryRun && secret === undefined) {
        throw new CliError(
          "give --secret (or set REPORTKIT_SECRET): the webhook's secret, which your receiver checks.",
        );
      }
      // Whatever is printed passes here: a receiver may echo the secret in its reply.
      const hide = redactToken(secret);
      const out = (text: string) => io.stdout(hide(text));
      const concurrency = Number(flags.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1) {
        throw new CliError(
          `--concurrency must be a whole number, 1 or more; got "${flags.concurrency}".`,
        );
      }
      await withJournal(flags, io, async (kept) => {
        const entries = await kept.list(filterOf(flags, ["failed", "refused"]));
        if (flags.dryRun) {
          for (const entry of entries) {
            io.stdout(
              `would send ${entry.request.method} ${targetOf(base, entry)}  (${entry.key})\n`,
            );
          }
          io.stdout(
            `${count(entries.length, "entry", "entries")} to replay (dry run: nothing sent)\n`,
          );
          return;
        }
        const tally = { processed: 0, duplicate: 0, failed: 0 };
        const queue = [...entries];
        const worker = async () => {
          for (let entry = queue.shift(); entry !== undefined; entry = queue.shift()) {
            const outcome = await send(base, entry, secret as string);
            tally[outcome.kind] += 1;
            // The report is processed now: the journal says so (its own commit did, if the key
            // was the report's; a refusal's entry is keyed by its body, so it is resolved here).
            if (outcome.kind !== "failed") await kept.resolve(entry.key);
            out(`${entry.key}  ${outcome.line}\n`);
          }
        };
        await Promise.all(Array.from({ length: Math.min(concurrency, entries.length) }, worker));
        io.stdout(
          `replayed ${entries.length}: ${tally.processed} processed, ${tally.duplicate} duplicate, ${tally.failed} failed\n`,
        );
        if (tally.failed > 0) {
          throw new CliError(
            `${tally.failed} of ${entries.length} did not get 200/202; they stay in the journal (see the replies above).`,
          );
        }
      });
    });
}

function withDb(command: Command): Command {
  return command
    .option(
      "--db <url>",
      "the journal's database: postgres://… or redis://… (a Redis Cluster's nodes comma-separated) (env: REPORTKIT_DB_URL)",
    )
    .option("--since <duration>", "only entries last seen this long ago or later, e.g. 2h, 30m")
    .option("--json", "print JSON instead of a table");
}

function filterOf(flags: ListFlags, allowed: readonly JournalStatus[] | undefined): JournalFilter {
  const statuses =
    flags.status === undefined
      ? undefined
      : flags.status.split(",").map((s) => s.trim() as JournalStatus);
  for (const status of statuses ?? []) {
    if (!(allowed ?? STATUSES).includes(status)) {
      throw new CliError(
        `--status must be ${(allowed ?? STATUSES).join(", ")} (comma-separated for several); got "${status}".`,
      );
    }
  }
  const since =
    flags.since === undefined
      ? undefined
      : new Date(Date.now() - parseDuration(flags.since, "--since"));
  return { ...(statuses && { status: statuses }), ...(since && { since }) };
}

/**
 * Opens the journal the URL names (several redis:// URLs, comma-separated, are a Redis
 * Cluster's nodes); @reportkit/postgres and @reportkit/redis (optional peers of the CLI) are
 * loaded only here, when needed. A journal that cannot be reached rejects with a StoreError
 * naming its server, which `main` prints as it is.
 */
async function withJournal(
  flags: ListFlags,
  io: CliIo,
  run: (journal: ReadableJournal) => Promise<void>,
): Promise<void> {
  const url = flags.db ?? io.env.REPORTKIT_DB_URL;
  if (url === undefined || url === "") {
    throw new CliError(
      "no journal database: pass --db (or set REPORTKIT_DB_URL), e.g. postgres://user:pass@127.0.0.1:5432/app or redis://127.0.0.1:6379.",
    );
  }
  let journal: ReadableJournal;
  if (/^postgres(ql)?:\/\//.test(url)) {
    const { postgresJournal } = await loadOptional(POSTGRES, () => import("@reportkit/postgres"));
    journal = postgresJournal({ connectionString: url });
  } else if (/^rediss?:\/\//.test(url)) {
    const { redisJournal } = await loadOptional(REDIS, () => import("@reportkit/redis"));
    journal = redisJournal({ connection: redisConnectionOf(url) });
  } else {
    throw new CliError("--db must start with postgres://, postgresql://, redis:// or rediss://.");
  }
  try {
    await run(journal);
  } finally {
    await journal.close();
  }
}

/** The kept request's URL on the receiver: its path and query on an origin, or its query on a full URL. */
function targetOf(base: URL, entry: JournalEntry): string {
  const kept = new URL(entry.request.url, "http://kept.invalid");
  const target = new URL(base);
  if (target.pathname === "/") target.pathname = kept.pathname;
  target.search = kept.search;
  return target.toString();
}

async function send(
  base: URL,
  entry: JournalEntry,
  secret: string,
): Promise<{ kind: "processed" | "duplicate" | "failed"; line: string }> {
  const { request } = entry;
  const headers: Record<string, string> = { authorization: `Bearer ${secret}` };
  if (request.contentType !== null) headers["content-type"] = request.contentType;
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  const body =
    request.bodyEncoding === "base64" ? Buffer.from(request.body, "base64") : request.body;
  try {
    const reply = await fetch(targetOf(base, entry), {
      method: request.method,
      headers,
      ...(hasBody && { body }),
    });
    const text = await reply.text();
    const line = `${reply.status} ${oneLine(text, 200)}`;
    if (reply.status !== 200 && reply.status !== 202) return { kind: "failed", line };
    return { kind: /"duplicate":true/.test(text) ? "duplicate" : "processed", line };
  } catch (error) {
    return {
      kind: "failed",
      line: `not sent: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
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
