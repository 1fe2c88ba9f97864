/** One load run, as loader.mjs reports it. Latencies in milliseconds. */
export interface RunResult {
  readonly rps: number;
  readonly p50: number | null;
  readonly p99: number | null;
  readonly requests: number;
  readonly duration: number;
  readonly ok2xx: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly statusCodes: readonly string[];
  /** Share of one CPU the load generator used during the run (0–1). */
  readonly loaderCpu: number;
  /** Share of one CPU the server used during the run (0–1). */
  serverCpu?: number;
  /**
   * Server CPU time per answered request, in µs, from the server's own process.cpuUsage()
   * before and after the run. Unlike requests/s it hardly moves when another process takes
   * CPU time from the server, so it is the steadier measure of cost.
   */
  serverCpuPerRequest?: number;
}

/** One measured configuration: a server answering one kind of request. */
export interface Row {
  readonly framework: string;
  readonly server:
    | "bare"
    | "bare, second process"
    | "bare, in a plugin"
    | "hand-written"
    | "reportkit's work, inline"
    | "reportkit"
    | "node:http"
    | "reportkit, dedupe off"
    | "reportkit, memory store"
    | "reportkit, Redis store"
    | "reportkit, Postgres inbox"
    | "reportkit, telemetry off"
    | "reportkit, OpenTelemetry";
  readonly scenario: string;
  /** Runs by round; warm-up runs are kept apart (they count for non-2xx only). */
  readonly runs: RunResult[];
  readonly warmups: RunResult[];
}

export interface MicroResult {
  readonly name: string;
  readonly opsPerSecond?: number;
  readonly nsPerOp?: number;
  readonly rme?: number;
  readonly error?: string;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function summarize(row: Row) {
  const rps = row.runs.map((r) => r.rps);
  const all = [...row.warmups, ...row.runs];
  const rpsMedian = median(rps);
  return {
    rps: rpsMedian,
    spread: rps.length > 1 ? (Math.max(...rps) - Math.min(...rps)) / rpsMedian : 0,
    p50: median(row.runs.flatMap((r) => (r.p50 === null ? [] : [r.p50]))),
    p99: median(row.runs.flatMap((r) => (r.p99 === null ? [] : [r.p99]))),
    serverCpu: median(row.runs.flatMap((r) => (r.serverCpu === undefined ? [] : [r.serverCpu]))),
    loaderCpu: median(row.runs.map((r) => r.loaderCpu)),
    cpuPerRequest: median(
      row.runs.flatMap((r) => (r.serverCpuPerRequest === undefined ? [] : [r.serverCpuPerRequest])),
    ),
    non2xx: sum(all.map((r) => r.non2xx)),
    failures: sum(all.map((r) => r.errors + r.timeouts)),
    ok2xx: sum(all.map((r) => r.ok2xx)),
    statusCodes: [...new Set(all.flatMap((r) => r.statusCodes))].sort(),
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

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

/** Median and interquartile range of per-round ratios. */
export interface Spread {
  readonly median: number;
  readonly q1: number;
  readonly q3: number;
  readonly rounds: number;
}

/** The p-th quantile (0–1) by linear interpolation between the sorted values. */
export function quantile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * p;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return (
    (sorted[low] as number) + ((sorted[high] as number) - (sorted[low] as number)) * (at - low)
  );
}

function spread(values: readonly number[]): Spread {
  const finite = values.filter(Number.isFinite);
  return {
    median: quantile(finite, 0.5),
    q1: quantile(finite, 0.25),
    q3: quantile(finite, 0.75),
    rounds: finite.length,
  };
}

/** Half the interquartile range as a share of the median: the "±" of a ratio. */
export function halfIqr(s: Spread): number {
  return (s.q3 - s.q1) / 2 / s.median;
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

function rowOf(rows: readonly Row[], framework: string, server: Row["server"], scenario: string) {
  return rows.find(
    (r) => r.framework === framework && r.server === server && r.scenario === scenario,
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
      rows.find((r) => r.framework === framework && r.server === server);
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

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "–");
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(3) : "–");
const pct = (n: number) => `${(n * 100).toFixed(1)}%`;
const share = (n: number) => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : "–");
const times = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : "–");

function table(header: readonly string[], align: readonly ("l" | "r")[], lines: string[][]) {
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
        row.server,
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

export function ratioTable(list: readonly Ratio[]): string {
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
      r.target === undefined ? "–" : `≥ ${r.target.toFixed(2)}`,
      r.target === undefined ? "–" : r.byCpu.median >= r.target ? "yes" : "**no**",
    ]),
  );
}

/** Five columns: the smoke test tells the tables apart by width. */
export function controlTable(list: readonly Control[]): string {
  const cell = (r: Spread) =>
    Number.isFinite(r.median)
      ? `${times(r.median)} (${times(r.q1)}–${times(r.q3)}, ±${pct(halfIqr(r))})`
      : "–";
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
      rows.find((r) => r.framework === framework && r.server === server);
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
