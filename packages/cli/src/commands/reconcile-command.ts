import {
  createClient,
  type ReconcileEvent,
  ReconcileIncompleteError,
  type ReconcileSummary,
  reconcile,
} from "@reportkit/client";
import { redactor } from "@reportkit/client/internal";
import { PROVIDER_TIME_ZONE } from "@reportkit/wire";
import type { Command } from "commander";
import { parseDuration } from "../duration.js";
import { CliError, type CliIo } from "../io.js";
import { cut, type LineWriter, lineWriter } from "../table.js";
import { type SecretFlags, secretOf, withSecretOptions } from "../webhook-secret.js";

interface ReconcileFlags extends SecretFlags {
  to?: string;
  header?: string;
  date?: string;
  id?: string;
  cid?: string;
  mobile?: string;
  group?: string;
  calls?: boolean;
  concurrency: string;
  timeout: string;
  apiTimeout: string;
  timeZone: string;
  dryRun?: boolean;
  json?: boolean;
  baseUrl?: string;
  apiToken?: string;
}

/**
 * `reportkit reconcile`: what the push lost, pulled back. Reads a day (or a message, a custom
 * id, a mobile, a group) from the provider's Pull DLR API, or its call-status API with
 * --calls, and sends every final record to the receiver as the provider would have pushed it.
 */
export function reconcileCommand(command: Command, io: CliIo): Command {
  command
    .description(
      "pull a day's messages (or calls) from the provider's API and send every final status your receiver never got, as the provider would have pushed it; ones it has are answered as duplicates",
    )
    .option("--to <url>", "your receiver, the webhook's URL");
  return withSecretOptions(command)
    .option("--header <name>", "send the secret as this header's value instead of Authorization")
    .option("--date <yyyy-mm-dd>", "the day to pull (default: yesterday in the provider's zone)")
    .option("--id <id>", "one message (or call) by its id")
    .option("--cid <id>", "your custom id")
    .option("--mobile <digits>", "one mobile number, with country code")
    .option("--group <id>", "a message group (SMS only)")
    .option("--calls", "call reports, from the call-status API (default: SMS delivery reports)")
    .option("--concurrency <n>", "reports sent at once", "4")
    .option("--timeout <duration>", "give up on one report's request after this long", "10s")
    .option("--api-timeout <duration>", "give up on a request to the provider's API", "30s")
    .option("--time-zone <zone>", "the provider's zone, for the default day", PROVIDER_TIME_ZONE)
    .option("--dry-run", "pull and list what would be sent; send nothing")
    .option("--json", "print only the summary, as one JSON object")
    .option(
      "--base-url <url>",
      "the provider's API base, ending in /api/v2/ (env: REPORTKIT_BASE_URL)",
    )
    .option("--api-token <token>", "the account's API access token (env: REPORTKIT_API_TOKEN)")
    .action(async (flags: ReconcileFlags) => {
      const baseUrl = flags.baseUrl ?? io.env.REPORTKIT_BASE_URL;
      const apiToken = flags.apiToken ?? io.env.REPORTKIT_API_TOKEN;
      const secret = secretOf(flags, io.env);
      if (baseUrl === undefined || baseUrl === "") {
        throw new CliError(
          "no base URL: pass --base-url or set REPORTKIT_BASE_URL (the provider's API, ending in /api/v2/).",
        );
      }
      if (apiToken === undefined || apiToken === "") {
        throw new CliError("no API token: pass --api-token or set REPORTKIT_API_TOKEN.");
      }
      if (!flags.dryRun && flags.to === undefined) {
        throw new CliError("give --to, your receiver's URL (the webhook's URL), or --dry-run.");
      }
      if (!flags.dryRun && secret === undefined) {
        throw new CliError(
          "give --secret (or set REPORTKIT_SECRET): the webhook's secret, which your receiver checks.",
        );
      }
      if (!/^\d+$/.test(flags.concurrency) || Number(flags.concurrency) < 1) {
        throw new CliError(
          `--concurrency must be a whole number from 1, got "${flags.concurrency}".`,
        );
      }
      // Whatever is printed passes here: a receiver may echo the credential in its reply.
      const hide = redactor([secret ?? "", apiToken]);
      const out = (text: string) => io.stdout(hide(text));
      const line = lineWriter(hide);
      const client = createClient({
        baseUrl,
        token: apiToken,
        timeoutMs: atLeastOneMs(flags.apiTimeout, "--api-timeout"),
      });
      const onRecord = flags.json
        ? undefined
        : (event: ReconcileEvent) => out(eventLine(line, event));
      let summary: ReconcileSummary;
      try {
        summary = await reconcile({
          client,
          kind: flags.calls ? "call" : "delivery",
          date: flags.date,
          id: flags.id,
          cid: flags.cid,
          mobile: flags.mobile,
          groupId: flags.group,
          timeZone: flags.timeZone,
          to: flags.to,
          secret,
          header: flags.header,
          concurrency: Number(flags.concurrency),
          timeoutMs: atLeastOneMs(flags.timeout, "--timeout"),
          dryRun: flags.dryRun === true,
          onRecord,
        });
      } catch (error) {
        if (!(error instanceof ReconcileIncompleteError)) throw error;
        out(summaryText(line, error.summary, flags.json));
        throw new CliError(hide(error.message));
      }
      out(summaryText(line, summary, flags.json));
      if (summary.failed > 0) {
        throw new CliError(
          `${summary.failed} of ${summary.final} reports were not answered 200 or 202 (listed above); fix the receiver and run again: what it already recorded comes back as a duplicate.`,
        );
      }
    });
}

function atLeastOneMs(text: string, option: string): number {
  const ms = parseDuration(text, option);
  if (ms < 1) throw new CliError(`${option} must be at least 1ms; got "${text}".`);
  return ms;
}

/** One line per settled record; pending ones are only counted. */
function eventLine(line: LineWriter, { id, status, outcome, reason }: ReconcileEvent): string {
  switch (outcome) {
    case "pending":
      return "";
    case "would-send":
      return line`would send ${id}  ${status}`;
    case "failed":
      return line`${id}  ${status}  failed: ${cut(reason ?? "", 240)}`;
    default:
      return line`${id}  ${status}  ${outcome}`;
  }
}

/** The summary: one JSON object on one line, or a sentence. */
function summaryText(line: LineWriter, s: ReconcileSummary, json: boolean | undefined): string {
  if (json) return `${JSON.stringify(s)}\n`;
  const api = s.kind === "delivery" ? "sms/status" : "outgoing/callstatus";
  const query = Object.entries(s.query)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
  const pulled = `pulled ${s.pulled} in ${s.pages} page${s.pages === 1 ? "" : "s"}, ${s.pending} pending, ${s.final} final`;
  if (s.dryRun) return line`${api} ${query}: ${pulled} (dry run: nothing sent)`;
  const stopped = s.complete ? "" : " (stopped early)";
  return line`${api} ${query}: ${pulled}: ${s.processed} processed, ${s.duplicate} duplicate, ${s.queued} queued, ${s.failed} failed${stopped}`;
}
