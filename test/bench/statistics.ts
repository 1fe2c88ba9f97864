// What a benchmark measured and its plain statistics: the load runs, the rows they make up,
// medians and quartiles. Comparisons between rows are in comparisons.ts, tables in tables.ts.

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

/** Which tree a server runs from: this one, or the one --base names (before/after). */
export type Tree = "current" | "base";

/** One measured configuration: a server answering one kind of request. */
export interface Row {
  readonly framework: string;
  /** The tree its server runs from. */
  readonly tree: Tree;
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
    | "reportkit, pg-boss"
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

export function spread(values: readonly number[]): Spread {
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
