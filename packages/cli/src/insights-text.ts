// `reportkit insights --format text`: every insight as a plain-text table under its title, and
// the alert check's one line.
import type { DimensionOutcomes, Insights, MessageSummary } from "@reportkit/postgres/insights";
import { formatTable } from "./table.js";

/** What --fail-below checked. */
export interface AlertCheck {
  /** The percentage the delivery rate must reach. */
  threshold: number;
  /** "1h". */
  window: string;
  windowMs: number;
  summary: MessageSummary;
}

/** 0.9312 → "93.1%"; null → "–". */
export function percent(rate: number | null): string {
  return rate === null ? "–" : `${(rate * 100).toFixed(1)}%`;
}

const n = (value: number | null) => (value === null ? "–" : String(value));
const text = (value: string | null) => value ?? "(none)";

function section(title: string, headers: string[], rows: string[][]): string {
  return `${title}\n${rows.length === 0 ? "(nothing in this range)" : formatTable(headers, rows)}\n`;
}

function rates(title: string, label: string, rows: DimensionOutcomes[]): string {
  return section(
    title,
    [label, "code", "messages", "delivered", "undelivered", "pending", "unknown", "rate"],
    rows.map((r) => [
      text(r.name),
      r.code ?? "",
      n(r.messages),
      n(r.delivered),
      n(r.undelivered),
      n(r.pending),
      n(r.unknown),
      percent(r.deliveryRate),
    ]),
  );
}

function summaryLines(summary: MessageSummary): string {
  const s = summary;
  return [
    `messages ${s.messages}: ${s.delivered} delivered, ${s.undelivered} undelivered, ${s.pending} pending, ${s.unknown} unknown; delivery rate ${percent(s.deliveryRate)} (of those not pending)`,
    `credits ${s.credits} for ${s.units} parts; ${s.creditsPerDelivered ?? "–"} per delivered message`,
  ].join("\n");
}

/** Every insight of `read`, titled tables one after the other. */
export function insightsText(read: Insights): string {
  const { query } = read;
  const filters = (["provider", "region", "custom", "custom1", "custom2"] as const)
    .filter((name) => query[name] !== undefined)
    .map((name) => `${name} ${query[name]}`);
  const head = `reportkit insights: ${String(query.from)} to ${String(query.to)} (${query.timeZone})${filters.length > 0 ? `, ${filters.join(", ")}` : ""}`;
  const parts = [
    `${head}\n${summaryLines(read.summary)}\n`,
    section(
      "Messages by day",
      ["day", "messages", "delivered", "undelivered", "pending", "unknown", "rate"],
      read.messagesByDay.map((d) => [
        d.day,
        n(d.messages),
        n(d.delivered),
        n(d.undelivered),
        n(d.pending),
        n(d.unknown),
        percent(d.deliveryRate),
      ]),
    ),
    rates("Delivery rate by operator", "operator", read.deliveryRateByProvider),
    rates("Delivery rate by circle", "circle", read.deliveryRateByRegion),
    rates(`Delivery rate by campaign (${read.tagField})`, read.tagField, read.deliveryRateByTag),
    section(
      "Failures by reason",
      ["reason", "messages", "a resend may deliver"],
      read.failuresByReason.map((f) => [
        f.reason ?? "(not recorded)",
        n(f.messages),
        n(f.transient),
      ]),
    ),
    section(
      "Failures by status",
      ["status", "reason", "messages", "a resend may deliver"],
      read.failuresByStatus.map((f) => [
        text(f.status),
        f.reason ?? "(not recorded)",
        n(f.messages),
        n(f.transient),
      ]),
    ),
    section(
      "Delivery latency by day (seconds, submitted to delivered)",
      ["day", "delivered", "p50", "p90", "p99"],
      read.latencyByDay.map((d) => [d.day, n(d.messages), n(d.p50), n(d.p90), n(d.p99)]),
    ),
    section(
      "Delivery latency by operator (seconds)",
      ["operator", "code", "delivered", "p50", "p90", "p99"],
      read.latencyByProvider.map((d) => [
        text(d.name),
        d.code ?? "",
        n(d.messages),
        n(d.p50),
        n(d.p90),
        n(d.p99),
      ]),
    ),
    section(
      "Credits by day",
      ["day", "messages", "delivered", "parts", "credits", "per delivered"],
      read.creditsByDay.map((d) => [
        d.day,
        n(d.messages),
        n(d.delivered),
        n(d.units),
        d.credits,
        d.creditsPerDelivered ?? "–",
      ]),
    ),
    section(
      "Calls by day",
      [
        "day",
        "calls",
        "answered",
        "unanswered",
        "answer rate",
        "seconds answered",
        "average",
        "billed",
      ],
      read.callsByDay.map((d) => [
        d.day,
        n(d.calls),
        n(d.answered),
        n(d.unanswered),
        percent(d.answerRate),
        n(d.duration),
        n(d.averageDuration),
        n(d.billing),
      ]),
    ),
    section(
      "Opt-outs by day",
      ["day", "opt-outs", "of every sender"],
      read.optOutsByDay.map((d) => [d.day, n(d.optOuts), n(d.allSenders)]),
    ),
    section(
      "Opt-outs by sender id",
      ["type", "sender id", "opt-outs"],
      read.optOutsBySender.map((o) => [text(o.type), text(o.value), n(o.optOuts)]),
    ),
  ];
  return `${parts.join("\n")}`;
}

/** The alert check's line: the window's rate against the threshold. */
export function alertLine(check: AlertCheck): string {
  const { summary: s, threshold, window } = check;
  const settled = s.messages - s.pending;
  if (s.deliveryRate === null) {
    return `delivery rate of the last ${window}: no message settled (${s.messages} sent, ${s.pending} pending); nothing to check against ${threshold}%`;
  }
  const verdict = s.deliveryRate * 100 < threshold ? "BELOW" : "at or above";
  return `delivery rate of the last ${window}: ${percent(s.deliveryRate)} (${s.delivered} delivered of ${settled} settled, ${s.pending} pending), ${verdict} ${threshold}%`;
}
