// `reportkit insights --format text`: the totals, then every section of the page as a plain-text
// table under its title (the page's own definitions, insights/insights-charts.js), and the alert
// check's one line.
import type { Insights, MessageSummary } from "@reportkit/postgres/insights";
import { percent, SECTIONS } from "../insights/insights-charts.js";
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

function summaryLines(s: MessageSummary): string {
  return [
    `messages ${s.messages}: ${s.delivered} delivered, ${s.undelivered} undelivered, ${s.pending} pending, ${s.unknown} unknown; delivery rate ${percent(s.deliveryRate)} (of those not pending)`,
    `credits ${s.credits} for ${s.units} parts; ${s.creditsPerDelivered ?? "–"} per delivered message`,
  ].join("\n");
}

/** The range, its filters and totals, then each section's table under its title. */
export function insightsText(read: Insights): string {
  const { query } = read;
  const filters = (["provider", "region", "custom", "custom1", "custom2"] as const)
    .filter((name) => query[name] !== undefined)
    .map((name) => `${name} ${query[name]}`);
  const only = filters.length > 0 ? `, ${filters.join(", ")}` : "";
  const head = `reportkit insights: ${String(query.from)} to ${String(query.to)} (${query.timeZone})${only}; campaigns by ${read.tagField}`;
  const sections = SECTIONS.map((section) => {
    const { headers, rows } = section.table(read);
    const body = rows.length === 0 ? "(nothing in this range)" : formatTable(headers, rows);
    return `${section.title}\n${body}\n`;
  });
  return [`${head}\n${summaryLines(read.summary)}\n`, ...sections].join("\n");
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
