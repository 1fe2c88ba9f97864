// The markdown tables of the report. The smoke test (bench-smoke.test.ts) tells them apart
// by their number of columns.
import type { BeforeAfter, Control, DedupeRatio, Ratio, TelemetryCost } from "./comparisons.js";
import type { HandleCosts } from "./micro-runs.js";
import { halfIqr, type MicroResult, type Row, type Spread, summarize } from "./statistics.js";

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "–");
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(3) : "–");
const pct = (n: number) => `${(n * 100).toFixed(1)}%`;
const share = (n: number) => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : "–");
const times = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : "–");

/** A markdown table; `align` per column, left or right. */
export function table(header: readonly string[], align: readonly ("l" | "r")[], lines: string[][]) {
  const rule = align.map((a) => (a === "r" ? "---:" : "---"));
  return [header, rule, ...lines].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}

export function httpTable(rows: readonly Row[]): string {
  return table(
    [
      "Framework",
      "Server",
      "Request",
      "req/s (median)",
      "spread (max−min)",
      "p50 ms",
      "p99 ms",
      "server CPU µs/req",
      "CPU server / loader",
      "non-2xx",
    ],
    ["l", "l", "l", "r", "r", "r", "r", "r", "r", "r"],
    rows.map((row) => {
      const s = summarize(row);
      const non2xx = s.non2xx + s.failures;
      return [
        row.framework,
        row.tree === "base" ? `${row.server} (base tree)` : row.server,
        row.scenario,
        int(s.rps),
        pct(s.spread),
        ms(s.p50),
        ms(s.p99),
        Number.isFinite(s.cpuPerRequest) ? s.cpuPerRequest.toFixed(0) : "–",
        `${share(s.serverCpu)} / ${share(s.loaderCpu)}`,
        non2xx === 0 ? "0" : `**${non2xx}** (${s.statusCodes.join(", ")})`,
      ];
    }),
  );
}

/**
 * `judged`: whether this mode's ratios are the ones the targets are judged by (else the target
 * and met columns say "–").
 */
export function ratioTable(list: readonly Ratio[], judged = true): string {
  const cell = (r: Spread) =>
    Number.isFinite(r.median)
      ? [times(r.median), `${times(r.q1)}–${times(r.q3)} (±${pct(halfIqr(r))})`]
      : ["–", "–"];
  return table(
    [
      "Framework",
      "Request",
      "reportkit /",
      "by server CPU per request (median)",
      "IQR",
      "by req/s (median)",
      "IQR",
      "target",
      "met",
    ],
    ["l", "l", "l", "r", "r", "r", "r", "r", "l"],
    list.map((r) => [
      r.framework,
      r.scenario,
      r.of,
      ...cell(r.byCpu),
      ...cell(r.byRps),
      r.target === undefined || !judged ? "–" : `≥ ${r.target.toFixed(2)}`,
      r.target === undefined || !judged ? "–" : r.byCpu.median >= r.target ? "yes" : "**no**",
    ]),
  );
}

/** A ratio's median with its interquartile range, in one cell. */
const spreadCell = (r: Spread | undefined) =>
  r !== undefined && Number.isFinite(r.median)
    ? `${times(r.median)} (${times(r.q1)}–${times(r.q3)}, ±${pct(halfIqr(r))})`
    : "–";

/** How much worse than the base tree this tree may read, beyond its IQR, by the rule. */
export const WORSE_BY_AT_MOST = 0.03;

/**
 * Eight columns (no other table has eight). A row fails the check when the whole IQR of
 * base / this tree lies below 1 − WORSE_BY_AT_MOST: worse by more than that beyond its spread.
 */
export function beforeAfterTable(list: readonly BeforeAfter[]): string {
  return table(
    [
      "Framework",
      "Request",
      "reportkit server",
      "against",
      "this tree: the floor's CPU / reportkit's (median, IQR)",
      "base tree: the same",
      "base tree's CPU / this tree's (median, IQR)",
      `no worse than ${WORSE_BY_AT_MOST * 100}% beyond its IQR`,
    ],
    ["l", "l", "l", "l", "r", "r", "r", "l"],
    list.map((r) => [
      r.framework,
      r.scenario,
      r.server,
      r.floor ?? "–",
      spreadCell(r.current),
      spreadCell(r.base),
      spreadCell(r.change),
      Number.isFinite(r.change.q3) ? (r.change.q3 >= 1 - WORSE_BY_AT_MOST ? "yes" : "**no**") : "–",
    ]),
  );
}

/** Five columns, "this tree" or "base tree" first. */
export function handleCostTable(costs: HandleCosts): string {
  const micros = (r: Spread) =>
    Number.isFinite(r.median)
      ? [r.median.toFixed(2), `${r.q1.toFixed(2)}–${r.q3.toFixed(2)} (±${pct(halfIqr(r))})`]
      : ["–", "–"];
  return table(
    [
      "Tree",
      "core `handle` per DLR, µs of CPU (median)",
      "IQR",
      "base tree's µs / this tree's (median, IQR)",
      "rounds",
    ],
    ["l", "r", "r", "r", "r"],
    costs.trees.map(({ tree, micros: spread }) => [
      tree === "base" ? "base tree" : "this tree",
      ...micros(spread),
      tree === "current" ? spreadCell(costs.change) : "",
      String(spread.rounds),
    ]),
  );
}

/** Five columns: the smoke test tells the tables apart by width. */
export function controlTable(list: readonly Control[]): string {
  const cell = spreadCell;
  return table(
    [
      "Framework",
      "Request",
      "by server CPU per request (median, IQR)",
      "by req/s (median, IQR)",
      "rounds",
    ],
    ["l", "l", "r", "r", "r"],
    list.map((c) => [
      c.framework,
      c.scenario,
      cell(c.byCpu),
      cell(c.byRps),
      String(c.byCpu.rounds),
    ]),
  );
}

/** Six columns (the ratio table above has nine): the smoke test tells them apart by width. */
export function dedupeRatioTable(list: readonly DedupeRatio[]): string {
  return table(
    [
      "Framework",
      "store / dedupe off",
      "req/s ratio (medians)",
      "per-round range",
      "by server CPU per request (median of rounds, IQR)",
      "memory store costs under 5% of CPU",
    ],
    ["l", "l", "r", "r", "r", "l"],
    list.map((r) => [
      r.framework,
      r.store.replace("reportkit, ", ""),
      // The Redis store's and the Postgres inbox's servers run alone, on a CPU the others share:
      // their req/s says nothing against theirs, their CPU per request still does.
      r.store !== "reportkit, memory store" ? "– (ran alone)" : times(r.value),
      r.store !== "reportkit, memory store" ? "–" : `${times(r.low)}–${times(r.high)}`,
      `${times(r.byCpu)} (${times(r.byCpuIqr[0])}–${times(r.byCpuIqr[1])})`,
      r.store !== "reportkit, memory store" ? "–" : r.byCpu >= 0.95 ? "yes" : "**no**",
    ]),
  );
}

/** Three columns (no other table of the report has three): the smoke test finds it by that. */
export function telemetryTable(list: readonly TelemetryCost[]): string {
  return table(
    [
      "Framework",
      "server CPU per report, OpenTelemetry / off (median of rounds, IQR)",
      "µs CPU added per report",
    ],
    ["l", "r", "r"],
    list.map((c) => [
      c.framework,
      `${times(c.ratio)} (${times(c.iqr[0])}–${times(c.iqr[1])})`,
      Number.isFinite(c.addedMicros) ? c.addedMicros.toFixed(1) : "–",
    ]),
  );
}

export function microTable(results: readonly MicroResult[]): string {
  return table(
    ["Operation", "ops/s", "ns/op", "±"],
    ["l", "r", "r", "r"],
    results.map((r) =>
      r.error === undefined
        ? [
            r.name,
            int(r.opsPerSecond ?? Number.NaN),
            int(r.nsPerOp ?? Number.NaN),
            `${(r.rme ?? 0).toFixed(1)}%`,
          ]
        : [r.name, "error", r.error, ""],
    ),
  );
}
