// Comparisons between rows measured in the same rounds: reportkit against the other servers,
// the controls, the dedupe stores and telemetry, this tree against a base tree, each a ratio
// per round summarized. Every comparison but the before/after reads the current tree's rows.
import { type Row, type Spread, spread, summarize } from "./statistics.js";

export interface Ratio {
  readonly framework: string;
  readonly scenario: string;
  readonly of: "bare" | "hand-written" | "bare, in a plugin" | "reportkit's work, inline";
  /** The target; none for the comparison that only explains one. */
  readonly target: number | undefined;
  /**
   * By server CPU time per request, other / reportkit (above 1: reportkit costs less), one
   * ratio per round from that round's runs, summarized by median and quartiles.
   */
  readonly byCpu: Spread;
  /** By requests/s, reportkit / other, per round likewise. */
  readonly byRps: Spread;
}

/**
 * reportkit / bare and reportkit / hand-written for each framework and request kind, each
 * ratio computed within a round (runs of one round ran back to back), then summarized.
 */
export function ratios(rows: readonly Row[], scenarios: readonly string[]): Ratio[] {
  const out: Ratio[] = [];
  const frameworks = [...new Set(rows.map((r) => r.framework))];
  for (const framework of frameworks) {
    for (const scenario of scenarios) {
      const find = (server: Row["server"]) => rowOf(rows, framework, server, scenario);
      const reportkit = find("reportkit");
      if (reportkit === undefined) continue;
      for (const [of, target] of [
        ["bare", 0.95],
        ["hand-written", 1.0],
        ["bare, in a plugin", undefined],
        ["reportkit's work, inline", undefined],
      ] as const) {
        const other = find(of);
        if (other === undefined) continue;
        out.push({ framework, scenario, of, target, ...perRound(reportkit, other) });
      }
    }
  }
  return out;
}

function rowOf(
  rows: readonly Row[],
  framework: string,
  server: Row["server"],
  scenario: string,
  tree: Row["tree"] = "current",
) {
  return rows.find(
    (r) =>
      r.framework === framework &&
      r.server === server &&
      r.scenario === scenario &&
      r.tree === tree,
  );
}

/** `mine` against `theirs`, one ratio per round from that round's runs (loaded together). */
function perRound(mine: Row, theirs: Row): Pick<Ratio, "byCpu" | "byRps"> {
  const rounds = mine.runs.map((run, i) => [run, theirs.runs[i]] as const);
  return {
    byCpu: spread(
      rounds.map(
        ([a, b]) => (b?.serverCpuPerRequest ?? Number.NaN) / (a.serverCpuPerRequest ?? Number.NaN),
      ),
    ),
    byRps: spread(rounds.map(([a, b]) => a.rps / (b?.rps ?? Number.NaN))),
  };
}

/** Two bare servers loaded together: what the method reads as a difference, or what a plugin costs. */
export interface Control {
  readonly framework: string;
  readonly scenario: string;
  readonly byCpu: Spread;
  readonly byRps: Spread;
}

/**
 * Another bare server against the bare one, per framework and request kind: by default its
 * second process (the method's own error), or the bare route in a plugin of its own.
 */
export function controls(
  rows: readonly Row[],
  scenarios: readonly string[],
  other: "bare, second process" | "bare, in a plugin" = "bare, second process",
): Control[] {
  const out: Control[] = [];
  for (const framework of [...new Set(rows.map((r) => r.framework))]) {
    for (const scenario of scenarios) {
      const find = (server: Row["server"]) => rowOf(rows, framework, server, scenario);
      const first = find("bare");
      const second = find(other);
      if (first === undefined || second === undefined) continue;
      out.push({ framework, scenario, ...perRound(second, first) });
    }
  }
  return out;
}

export interface DedupeRatio {
  readonly framework: string;
  readonly store:
    | "reportkit, memory store"
    | "reportkit, Redis store"
    | "reportkit, Postgres inbox";
  /** req/s with the store / req/s with dedupe off (medians). */
  readonly value: number;
  readonly low: number;
  readonly high: number;
  /** Server CPU per request with dedupe off / with the store: median of the rounds' ratios. */
  readonly byCpu: number;
  /** Its interquartile range over the rounds. */
  readonly byCpuIqr: readonly [number, number];
}

/** Each store against dedupe off, per framework, from the same run. */
export function dedupeRatios(rows: readonly Row[]): DedupeRatio[] {
  const out: DedupeRatio[] = [];
  for (const framework of [...new Set(rows.map((r) => r.framework))]) {
    const find = (server: Row["server"]) =>
      rows.find((r) => r.framework === framework && r.server === server && r.tree === "current");
    const off = find("reportkit, dedupe off");
    if (off === undefined) continue;
    for (const store of [
      "reportkit, memory store",
      "reportkit, Redis store",
      "reportkit, Postgres inbox",
    ] as const) {
      const row = find(store);
      if (row === undefined) continue;
      const paired = row.runs
        .map((r, i) => r.rps / (off.runs[i]?.rps ?? Number.NaN))
        .filter(Number.isFinite);
      // Per round, as the headline ratios: the memory store is loaded together with "off".
      const cpu = spread(
        row.runs.map(
          (r, i) =>
            (off.runs[i]?.serverCpuPerRequest ?? Number.NaN) /
            (r.serverCpuPerRequest ?? Number.NaN),
        ),
      );
      out.push({
        framework,
        store,
        value: summarize(row).rps / summarize(off).rps,
        low: Math.min(...paired),
        high: Math.max(...paired),
        byCpu: cpu.median,
        byCpuIqr: [cpu.q1, cpu.q3],
      });
    }
  }
  return out;
}

export interface TelemetryCost {
  readonly framework: string;
  /** Server CPU per report, OpenTelemetry / telemetry off: median of the rounds' ratios. */
  readonly ratio: number;
  readonly iqr: readonly [number, number];
  /** µs of server CPU per report added (medians of each row). */
  readonly addedMicros: number;
}

/** `telemetry: otelTelemetry()` against none, per framework, loaded together each round. */
export function telemetryCosts(rows: readonly Row[]): TelemetryCost[] {
  const out: TelemetryCost[] = [];
  for (const framework of [...new Set(rows.map((r) => r.framework))]) {
    const find = (server: Row["server"]) =>
      rows.find((r) => r.framework === framework && r.server === server && r.tree === "current");
    const off = find("reportkit, telemetry off");
    const otel = find("reportkit, OpenTelemetry");
    if (off === undefined || otel === undefined) continue;
    const cpu = spread(
      otel.runs.map(
        (r, i) =>
          (r.serverCpuPerRequest ?? Number.NaN) / (off.runs[i]?.serverCpuPerRequest ?? Number.NaN),
      ),
    );
    out.push({
      framework,
      ratio: cpu.median,
      iqr: [cpu.q1, cpu.q3],
      addedMicros: summarize(otel).cpuPerRequest - summarize(off).cpuPerRequest,
    });
  }
  return out;
}

const INLINE = "reportkit's work, inline";

/** A reportkit server of this tree against the same server of the base tree (--base). */
export interface BeforeAfter {
  readonly framework: string;
  readonly scenario: string;
  readonly server: Row["server"];
  /** What both are held against in their rounds: the inline floor, else bare; none off the headline. */
  readonly floor: "reportkit's work, inline" | "bare" | undefined;
  /** By server CPU per request, the floor's / this tree's, per round. */
  readonly current: Spread | undefined;
  /** The same for the base tree's server. */
  readonly base: Spread | undefined;
  /** By server CPU per request, the base tree's / this tree's, per round: above 1, this tree costs less. */
  readonly change: Spread;
}

/**
 * Each base-tree row against its twin of this tree, loaded in the same rounds; for the headline
 * requests, each against the floor too. Within a round the floor cancels out: `change` is both
 * trees' ratios to the floor divided, round by round.
 */
export function beforeAfter(rows: readonly Row[]): BeforeAfter[] {
  const out: BeforeAfter[] = [];
  for (const base of rows.filter((r) => r.tree === "base")) {
    const { framework, server, scenario } = base;
    const current = rowOf(rows, framework, server, scenario);
    if (current === undefined) continue;
    const inline = rowOf(rows, framework, INLINE, scenario);
    const bare = rowOf(rows, framework, "bare", scenario);
    const floorRow = server === "reportkit" ? (inline ?? bare) : undefined;
    out.push({
      framework,
      scenario,
      server,
      floor: floorRow === undefined ? undefined : inline !== undefined ? INLINE : "bare",
      current: floorRow === undefined ? undefined : perRound(current, floorRow).byCpu,
      base: floorRow === undefined ? undefined : perRound(base, floorRow).byCpu,
      change: perRound(current, base).byCpu,
    });
  }
  return out;
}
