import { isHeaderName, type PushVerdict, redactor, reportPusher } from "@reportkit/client/internal";
import type { JournalEntry } from "@reportkit/core/adapter";
import type { Command } from "commander";
import { parseDuration } from "../duration.js";
import { CliError, type CliIo } from "../io.js";
import { count, filterOf, type JournalFlags, withDb, withJournal } from "../journal-database.js";
import { type ReplaySummary, replayEntries } from "../replay-entries.js";
import { cut, type LineWriter, lineWriter } from "../table.js";
import { inline } from "../terminal-safe.js";
import { type SecretFlags, secretOf, withSecretOptions } from "../webhook-secret.js";

interface ReplayFlags extends JournalFlags, SecretFlags {
  to?: string;
  header?: string;
  dryRun?: boolean;
  json?: boolean;
  concurrency: string;
  timeout: string;
}

// How many entries that got no answer the closing message names.
const TIMED_OUT_NAMED = 5;

/** `reportkit replay`: sends kept reports to the receiver again, as the provider would. */
export function replayCommand(replay: Command, io: CliIo): Command {
  withDb(replay)
    .description(
      "send the kept reports (failed ones by default) to your receiver again, as the provider would, once the cause is fixed",
    )
    .option("--to <url>", "the receiver: an origin (the kept path is used) or a full URL");
  return withSecretOptions(replay)
    .option("--header <name>", "send the secret as this header's value instead of Authorization")
    .option("--status <status>", "failed or refused (comma-separated for both)", "failed")
    .option("--concurrency <n>", "how many requests at once", "4")
    .option("--timeout <duration>", "give up on one report's request after this long", "10s")
    .option("--dry-run", "list what would be sent, send nothing")
    .option("--json", "print only the summary, as one JSON object")
    .action(async (flags: ReplayFlags) => {
      const base = targetBase(flags.to);
      const secret = secretOf(flags, io.env);
      if (!flags.dryRun && secret === undefined) {
        throw new CliError(
          "give --secret (or set REPORTKIT_SECRET): the webhook's secret, which your receiver checks.",
        );
      }
      if (secret !== undefined && /[\r\n]/.test(secret)) {
        throw new CliError("--secret must be the webhook's secret on one line.");
      }
      if (flags.header !== undefined && !isHeaderName(flags.header)) {
        throw new CliError(
          `--header must be a header name such as x-api-key; got ${JSON.stringify(flags.header)}.`,
        );
      }
      const concurrency = Number(flags.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1) {
        throw new CliError(
          `--concurrency must be a whole number, 1 or more; got "${flags.concurrency}".`,
        );
      }
      const timeoutMs = parseDuration(flags.timeout, "--timeout");
      if (timeoutMs < 1)
        throw new CliError(`--timeout must be at least 1ms; got "${flags.timeout}".`);
      const { status = ["failed"], kind, since } = filterOf(flags, ["failed", "refused"]);
      // Whatever is printed passes here, errors included: a receiver may echo the secret in
      // its reply (in any letter case, URL-encoded, in base64), and a kept URL may hold it.
      const hide = redactor(secret ?? "");
      const out = (text: string) => io.stdout(hide(text));
      const line = lineWriter(hide);
      const push =
        secret === undefined || flags.dryRun
          ? undefined
          : reportPusher({
              secret,
              header: flags.header,
              headers: { "user-agent": "reportkit-replay" },
              timeoutMs,
            });

      await withJournal(flags, io, async (kept) => {
        const summary = await replayEntries(kept, {
          status,
          kind,
          since,
          concurrency,
          send: push && ((entry) => push(requestOf(base, entry))),
          onEntry: (entry, verdict) => {
            if (!flags.json) out(entryLine(line, base, entry, verdict));
          },
        });
        out(summaryText(line, summary, flags.json));
        const failure = closingFailure(summary, flags.timeout);
        if (failure !== undefined) throw new CliError(hide(failure));
      });
    });
}

/** --to as a URL the CLI may send the secret to. */
function targetBase(to: string | undefined): URL {
  if (to === undefined) {
    throw new CliError("give --to, the receiver's URL (e.g. http://127.0.0.1:3000).");
  }
  let base: URL;
  try {
    base = new URL(to);
  } catch {
    throw new CliError(`--to must be a URL such as http://127.0.0.1:3000/webhooks; got "${to}".`);
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new CliError(`--to must be an http:// or https:// URL; got "${base.protocol}".`);
  }
  if (base.username !== "" || base.password !== "") {
    throw new CliError(
      "--to must not carry a user or password: the receiver gets the webhook's secret (--secret) as the provider sends it.",
    );
  }
  return base;
}

/** The kept request's URL on the receiver: its path and query on an origin, or its query on a full URL. */
function targetOf(base: URL, entry: JournalEntry): URL {
  const kept = new URL(entry.request.url, "http://kept.invalid");
  const target = new URL(base);
  if (target.pathname === "/") target.pathname = kept.pathname;
  target.search = kept.search;
  return target;
}

/** The kept request as the provider sent it: method, Content-Type and body. */
function requestOf(base: URL, entry: JournalEntry) {
  const { request } = entry;
  return {
    url: targetOf(base, entry),
    method: request.method,
    contentType: request.contentType,
    body:
      request.bodyEncoding === "base64"
        ? new Uint8Array(Buffer.from(request.body, "base64"))
        : request.body,
  };
}

/** One line per settled entry, as `reportkit reconcile` prints its reports. */
function entryLine(
  line: LineWriter,
  base: URL,
  entry: JournalEntry,
  verdict: PushVerdict | undefined,
): string {
  const { key } = entry;
  if (verdict === undefined) {
    return line`would send ${entry.request.method} ${targetOf(base, entry).href}  (${key})`;
  }
  if (verdict.kind === "failed") return line`${key}  failed: ${cut(verdict.reason, 240)}`;
  return line`${key}  ${verdict.kind}`;
}

/** The summary: one JSON object on one line, or a sentence. */
function summaryText(line: LineWriter, s: ReplaySummary, json: boolean | undefined): string {
  if (json) return `${JSON.stringify(s)}\n`;
  const done = s.dryRun
    ? `${count(s.entries, "entry", "entries")} to replay (dry run: nothing sent)`
    : `replayed ${s.entries}: ${s.processed} processed, ${s.duplicate} duplicate, ${s.queued} queued, ${s.failed} failed`;
  if (s.stopped === undefined) return `${done}\n`;
  return line`${done} (stopped early: ${cut(s.stopped, 240)})`;
}

/** Why the run ends with exit code 1, if it does. */
function closingFailure(s: ReplaySummary, timeout: string): string | undefined {
  if (s.stopped !== undefined) {
    return `replay stopped after ${count(s.entries, "entry", "entries")}: ${inline(s.stopped)}. The entries not replayed stay in the journal: run it again (what was resolved is not sent again).`;
  }
  if (s.failed === 0) return undefined;
  const timedOut = s.failures.filter((f) => f.timedOut).map((f) => inline(f.key));
  const named = timedOut.slice(0, TIMED_OUT_NAMED).join(", ");
  const more =
    timedOut.length > TIMED_OUT_NAMED ? ` and ${timedOut.length - TIMED_OUT_NAMED} more` : "";
  const silent =
    timedOut.length === 0 ? "" : ` No answer within --timeout ${timeout} for ${named}${more}.`;
  return `${s.failed} of ${s.entries} were not answered with reportkit's reply (listed above); they stay in the journal: fix the cause and run it again.${silent}`;
}
