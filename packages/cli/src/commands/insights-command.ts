import type { InsightsQuery } from "@reportkit/postgres/insights";
import { PROVIDER_TIME_ZONE } from "@reportkit/wire";
import type { Command } from "commander";
import { databaseAddress, passwordRedactor } from "../database-url.js";
import { formatDuration, parseDuration } from "../duration.js";
import { serveInsights } from "../insights-server.js";
import { type AlertCheck, alertLine, insightsText } from "../insights-text.js";
import { CliError, type CliIo } from "../io.js";
import { INSIGHTS, loadOptional } from "../optional-package.js";

interface InsightsFlags {
  databaseUrl?: string;
  from?: string;
  to?: string;
  timeZone: string;
  provider?: string;
  region?: string;
  custom?: string;
  custom1?: string;
  custom2?: string;
  tagField: string;
  limit: string;
  format: string;
  port: string;
  failBelow?: string;
  window: string;
}

const FORMATS = ["page", "text", "json"];
const TAG_FIELDS = ["custom", "custom1", "custom2"];

/**
 * `reportkit insights`: what the ledger (recordStatus, recordCall, recordOptOut) says, drawn
 * on a local page, or printed as text or JSON; with --fail-below, an alert check for cron.
 */
export function insightsCommand(command: Command, io: CliIo): Command {
  return command
    .description(
      "see how delivery is going: messages by day and outcome, the delivery rate by operator, circle and campaign, why messages failed, how long delivery took, what it cost, calls and opt-outs; on a local page, as text or JSON, or as an alert check",
    )
    .option(
      "--database-url <url>",
      "the receiver's database, where recordStatus keeps the ledger: postgres://… (a role that may only read is enough) (env: REPORTKIT_DB_URL)",
    )
    .option("--from <yyyy-mm-dd>", "the first day (default: 6 days before --to)")
    .option("--to <yyyy-mm-dd>", "the last day, included (default: today in the provider's zone)")
    .option("--time-zone <zone>", "the zone that says what a day is", PROVIDER_TIME_ZONE)
    .option("--provider <name>", "only messages to this operator, as the reports name it (Jio)")
    .option("--region <name>", "only messages to this circle (Bangalore)")
    .option("--custom <value>", "only messages sent with this custom id")
    .option("--custom1 <value>", "only messages sent with this custom1 (a campaign tag)")
    .option("--custom2 <value>", "only messages sent with this custom2")
    .option(
      "--tag-field <field>",
      "the tag the rate by campaign reads: custom, custom1 or custom2",
      "custom1",
    )
    .option("--limit <n>", "rows at most per breakdown (operators, circles, tags, statuses)", "50")
    .option("--format <format>", "page (a local page with charts), text or json", "page")
    .option("--port <n>", "the page's port on 127.0.0.1 (0: any free one)", "4020")
    .option(
      "--fail-below <percent>",
      "an alert check: print the delivery rate of the last --window and exit 2 when it is below this (text or json)",
    )
    .option("--window <duration>", "the alert's window, up to now", "1h")
    .action(async (flags: InsightsFlags) => {
      const url = flags.databaseUrl ?? io.env.REPORTKIT_DB_URL;
      if (url === undefined || url === "") {
        throw new CliError(
          "no database: pass --database-url (or set REPORTKIT_DB_URL), the receiver's database where recordStatus keeps the ledger, e.g. postgres://reader@127.0.0.1:5432/app.",
        );
      }
      const address = databaseAddress(url);
      const redact = passwordRedactor(url);
      if (!FORMATS.includes(flags.format)) {
        throw new CliError(`--format must be page, text or json; got "${flags.format}".`);
      }
      if (!TAG_FIELDS.includes(flags.tagField)) {
        throw new CliError(
          `--tag-field must be custom, custom1 or custom2; got "${flags.tagField}".`,
        );
      }
      const limit = wholeNumber(flags.limit, "--limit", 1, 1000);
      const port = wholeNumber(flags.port, "--port", 0, 65_535);
      const alert = flags.failBelow === undefined ? undefined : alertOf(flags);
      if (alert !== undefined && flags.format === "page") {
        throw new CliError(
          "--fail-below is a check for a terminal or cron: add --format text or json.",
        );
      }
      const to = flags.to ?? today(flags.timeZone);
      const query: InsightsQuery = {
        from: flags.from ?? daysBefore(to, 6, "--to"),
        to,
        timeZone: flags.timeZone,
        ...filtersOf(flags),
      };
      const insights = await loadOptional(INSIGHTS, () => import("@reportkit/postgres/insights"));
      const pool = insights.readOnlyPool({ connectionString: url });
      const options = { tagField: flags.tagField as "custom1", limit };
      try {
        if (alert !== undefined) {
          const now = Date.now();
          const summary = await insights.messageSummary(pool, {
            ...filtersOf(flags),
            from: new Date(now - alert.windowMs),
            to: new Date(now),
          });
          const checked: AlertCheck = { ...alert, summary };
          const below =
            summary.deliveryRate !== null && summary.deliveryRate * 100 < alert.threshold;
          io.stdout(
            flags.format === "json"
              ? `${JSON.stringify({ alert: { ...checked, below } })}\n`
              : `${alertLine(checked)}\n`,
          );
          if (below) {
            throw new CliError(
              `the delivery rate of the last ${alert.window} is below ${alert.threshold}%.`,
              2,
            );
          }
          return;
        }
        if (flags.format === "page") {
          await serveInsights({
            io,
            port,
            address,
            read: (given) => insights.readInsights(pool, given, options),
            query,
            redact,
          });
          return;
        }
        const read = await insights.readInsights(pool, query, options);
        io.stdout(flags.format === "json" ? `${JSON.stringify(read)}\n` : insightsText(read));
      } catch (error) {
        if (error instanceof CliError) throw error;
        const message = error instanceof Error ? error.message : String(error);
        // A query the layer refused (a range, a filter): its own words.
        if (error instanceof TypeError) throw new CliError(redact(message));
        throw new CliError(redact(`reading the ledger at ${address} failed: ${message}`));
      } finally {
        await pool.end();
      }
    });
}

function filtersOf(flags: InsightsFlags) {
  const filters: Partial<Record<"provider" | "region" | "custom" | "custom1" | "custom2", string>> =
    {};
  for (const name of ["provider", "region", "custom", "custom1", "custom2"] as const) {
    if (flags[name] !== undefined) filters[name] = flags[name];
  }
  return filters;
}

function alertOf(flags: InsightsFlags): Omit<AlertCheck, "summary"> {
  const threshold = Number(flags.failBelow);
  if (!/^\d+(\.\d+)?$/.test(flags.failBelow ?? "") || threshold > 100) {
    throw new CliError(
      `--fail-below must be a percentage from 0 to 100, e.g. 90; got "${flags.failBelow}".`,
    );
  }
  const windowMs = parseDuration(flags.window, "--window");
  if (windowMs < 60_000) throw new CliError(`--window must be at least 1m; got "${flags.window}".`);
  return { threshold, window: formatDuration(windowMs), windowMs };
}

function wholeNumber(text: string, option: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max) {
    throw new CliError(`${option} must be a whole number from ${min} to ${max}; got "${text}".`);
  }
  return n;
}

/** Today in `timeZone`, "yyyy-mm-dd". */
function today(timeZone: string): string {
  try {
    return new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    }).format(new Date());
  } catch {
    throw new CliError(
      `--time-zone must be an IANA time zone, e.g. Asia/Kolkata or UTC; got "${timeZone}".`,
    );
  }
}

/** The day `n` days before `day` ("yyyy-mm-dd"). */
function daysBefore(day: string, n: number, option: string): string {
  const at = Date.parse(`${day}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(at)) {
    throw new CliError(`${option} must be a day, yyyy-mm-dd; got "${day}".`);
  }
  return new Date(at - n * 86_400_000).toISOString().slice(0, 10);
}
