// The markdown report of a run, printed, and written to test/bench/RESULTS.md by a full run
// (the notes below its marker are kept).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, platform, release } from "node:os";
import { join } from "node:path";
import { beforeAfter, controls, dedupeRatios, ratios, telemetryCosts } from "./comparisons.js";
import { HANDLE_DLR, type HandleCosts, type MemoryResult } from "./micro-runs.js";
import { baseDir, CONNECTIONS, here, type Mode, PLAN, quick, TARGET_HALF_IQR } from "./options.js";
import { CALL, DLR, DLR_TELEMETRY, DLR_UNIQUE_IDS } from "./scenarios.js";
import { type ServerSpec, serverLabel } from "./server-plan.js";
import type { MicroResult, Row } from "./statistics.js";
import {
  beforeAfterTable,
  controlTable,
  dedupeRatioTable,
  handleCostTable,
  httpTable,
  microTable,
  ratioTable,
  table,
  telemetryTable,
  WORSE_BY_AT_MOST,
} from "./tables.js";

/** What one server process's `process.nextTick` cost, asked after the rounds. */
export interface NextTickCost {
  server: ServerSpec;
  ns: number;
}

/** Above this, a process's nextTick is in the slow state: 35–75 ns normally, 330–770 ns slow. */
const SLOW_NEXT_TICK_NS = 150;

function nextTickReport(costs: readonly NextTickCost[]): string[] {
  return [
    "### Node's `process.nextTick` in each server process, after the rounds",
    "",
    `Every request calls it several times. ns per call, the best of 20 batches of 10,000, measured in each server process once its rounds were over: about 36 ns normally, about ten times that once the call's tick-object literal has gone megamorphic in the process (see the notes), which then pays some 5 µs more on every request, whatever its route. Short runs found a few processes in that state, long ones most or all of them. Above ${SLOW_NEXT_TICK_NS} ns it is marked slow: a ratio with a slow process on one side is that much off.`,
    "",
    table(
      ["Framework", "Server", "Requests", "nextTick ns/call"],
      ["l", "r", "r", "r"],
      costs.map(({ server, ns }) => [
        server.framework,
        `${serverLabel(server.variant)}${server.tree === "base" ? " (base tree)" : ""}`,
        server.scenarios.map((scenario) => scenario.name).join(", "),
        ns > SLOW_NEXT_TICK_NS ? `**${ns.toFixed(0)} (slow)**` : ns.toFixed(0),
      ]),
    ),
    "",
  ];
}

function memoryReport(results: readonly MemoryResult[]): string[] {
  const n = (x: number) => x.toLocaleString("en-US");
  const growth = (m: MemoryResult) => m.rssLarge - m.rssSmall;
  const youngLabel = (m: MemoryResult) =>
    m.young === "presized" ? "pre-sized (16 MB semi-spaces)" : "V8 default (grows)";
  const row = (m: MemoryResult, requests: number, keys: number, rss: number, heap: number) => [
    m.label,
    youngLabel(m),
    n(requests),
    n(keys),
    rss.toFixed(1),
    heap.toFixed(1),
  ];
  const rows = results.flatMap((m) => [
    [...row(m, m.small, m.keysSmall, m.rssSmall, m.heapSmall), ""],
    [
      ...row(m, m.large, m.keysLarge, m.rssLarge, m.heapLarge),
      `${growth(m).toFixed(1)} (${growth(m) <= 20 ? "within 20 MB" : "**over 20 MB**"})`,
    ],
  ]);
  const off = (young: MemoryResult["young"]) =>
    results.find((m) => m.young === young && m.keysLarge === 0);
  const runtimeGrowth = off("default");
  const presizedGrowth = off("presized");
  // The store's own share: its RSS growth beyond dedupe: false's, both pre-sized (its keys
  // live in typed arrays, outside the JS heap).
  const store = results.find((m) => m.young === "presized" && m.keysLarge > m.keysSmall);
  const perKey =
    store === undefined || presizedGrowth === undefined
      ? Number.NaN
      : ((growth(store) - growth(presizedGrowth)) * 1048576) / (store.keysLarge - store.keysSmall);
  return [
    "## Memory: one receiver",
    "",
    "DLRs with ids of their own through `Receiver.handle`, in one process per variant; each figure after a full GC. The default in-memory dedupe store keeps up to 100,000 keys (for 2 hours), so from 10,000 to 200,000 requests it grows from 10,000 to 100,000 keys by design.",
    "",
    "Each variant runs twice: with V8's defaults, and with the young generation pre-sized to the size V8 grows it to anyway (`--min-semi-space-size=16`), which separates what the receiver keeps from V8 sizing its young generation under any allocating workload.",
    "",
    table(
      [
        "Receiver",
        "young generation",
        "after requests",
        "dedupe keys held",
        "RSS MB",
        "heap used MB",
        "RSS growth MB",
      ],
      ["l", "r", "r", "r", "r", "r", "r"],
      rows,
    ),
    "",
    `The store takes about ${Math.round(perKey)} bytes of memory per key it holds (its RSS growth beyond \`dedupe: false\`'s, both pre-sized; the keys live in typed arrays, outside the JS heap).${
      runtimeGrowth === undefined || presizedGrowth === undefined
        ? ""
        : ` With \`dedupe: false\` nothing is kept, yet RSS grows ${growth(runtimeGrowth).toFixed(1)} MB with V8's defaults and ${growth(presizedGrowth).toFixed(1)} MB pre-sized: that growth is the young generation's, not the receiver's.`
    }`,
    "",
  ];
}

function machine(): string {
  const cpu = cpus();
  const model = cpu[0]?.model.trim() ?? "unknown CPU";
  return `${model}, ${cpu.length} cores, Node ${process.version}, ${platform()} ${release()}`;
}

const NOTES_MARKER = "<!-- notes: everything below is kept when the results are regenerated -->";

function keptNotes(file: string): string {
  if (!existsSync(file)) return "";
  const text = readFileSync(file, "utf8");
  const at = text.indexOf(NOTES_MARKER);
  return at === -1 ? "" : text.slice(at + NOTES_MARKER.length);
}

/** What a run measured, as the report presents it. */
export interface MeasuredRun {
  /** When the run began, ISO 8601 to the second. */
  readonly date: string;
  readonly loadAtStart: number;
  /** How the servers and the load generator were pinned to CPUs. */
  readonly pinning: string;
  readonly rounds: number;
  /** Each mode's rows (the sequential mode has the headline requests only). */
  readonly rowsByMode: ReadonlyMap<Mode, readonly Row[]>;
  readonly nextTicks: readonly NextTickCost[];
  readonly micro: readonly MicroResult[];
  /** Core's `handle` per DLR, from this tree (and the base tree). */
  readonly handleCosts: HandleCosts | undefined;
  readonly memory: readonly MemoryResult[] | undefined;
  /** Queue mode's section (queue.ts), already in markdown. */
  readonly queueSection: readonly string[];
  /** What was not measured here, and why. */
  readonly notes: readonly string[];
  /** The run's length in minutes, as printed. */
  readonly minutes: string;
}

/** The targets are judged in this mode (docs/performance.md says why). */
const JUDGED: Mode = "sequential";

const MODE_METHOD: Record<Mode, (rounds: number) => string> = {
  concurrent: (rounds) =>
    `${rounds} rounds of ${PLAN.duration} s per configuration: in a round, the servers one comparison is made of (one request's bare, hand-written and reportkit servers, a second process of the bare one as a control, reportkit's work written inline on Fastify and Hono, the bare route in a plugin on Fastify; the dedupe variants) are loaded together, for the same second, each by its own ${CONNECTIONS} connections, all of them on the servers' CPU, so each one's cost is measured while the machine does the same other work for all. Many processes share one CPU, so each one's requests queue up and are answered in batches.`,
  sequential: (rounds) =>
    `${rounds} rounds of ${PLAN.duration} s per configuration: in a round, the same servers of one comparison (headline requests only) are loaded one at a time, in an order of the round's own, each alone on the servers' CPU by ${CONNECTIONS} connections, the load generator on the other CPU: each runs as a receiver does with one process per core, and its second is shared with whatever else the machine does then. Its own control is the bare server's second process, loaded the same way.`,
};

const MODE_TITLE: Record<Mode, string> = {
  concurrent: "concurrent mode (a comparison's servers loaded together)",
  sequential: "sequential mode (one server at a time)",
};

/** One mode's headline section: its runs, its ratios, its controls. */
function modeReport(mode: Mode, rows: readonly Row[], rounds: number): string[] {
  const headlineNames = [DLR.name, CALL.name];
  const dlrRows = rows.filter((r) => headlineNames.includes(r.scenario));
  const current = dlrRows.filter((r) => r.tree === "current");
  const judged = mode === JUDGED;
  const report = [
    `## HTTP, ${MODE_TITLE[mode]}`,
    "",
    `${MODE_METHOD[mode](rounds)}`,
    "",
    httpTable(dlrRows),
    "",
    `### Ratios (${mode}), each computed within a round; median and interquartile range over the rounds`,
    "",
    `By server CPU per request: the other server's µs / reportkit's (above 1: reportkit costs less). By req/s: reportkit's / the other's. ${judged ? "The targets are judged in this mode, by the CPU ratio, the steadier of the two on a shared machine." : `The targets are judged in the ${JUDGED} mode (docs/performance.md says why), so they are not repeated here.`}`,
    "",
    ratioTable(ratios(current, headlineNames), judged),
    "",
    `### The method's own error (${mode}): the bare server against a second process of itself`,
    "",
    "Loaded in the same rounds as the rows above, the same way. Identical code, so any distance from 1.00 is what this method reads as a difference where there is none: a ratio above is only as good as this.",
    "",
    controlTable(controls(current, headlineNames)),
    "",
  ];
  const plugin = controls(current, headlineNames, "bare, in a plugin");
  if (plugin.length > 0) {
    report.push(
      `### Fastify (${mode}): what an encapsulated plugin costs by itself`,
      "",
      "reportkit's route lives in an encapsulated plugin, since it brings body parsers of its own. The bare route in a plugin of its own, against the bare route, loaded in the same rounds (below 1: the plugin's costs more). A Fastify 5 process with an encapsulated plugin draws a megamorphic `process.nextTick` early more often than one without (see the notes), which costs every request about 5 µs more whatever its route, so this ratio moves from run to run; the nextTick table says which processes of this run were in that state at its end. The ratio table above also gives reportkit against this route.",
      "",
      controlTable(plugin),
      "",
    );
  }
  return report;
}

/** With --base: each reportkit server of this tree against the base tree's, per mode. */
function beforeAfterReport(rowsByMode: ReadonlyMap<Mode, readonly Row[]>): string[] {
  if (baseDir === undefined) return [];
  const report = [
    "## Before and after: this tree against the base tree",
    "",
    `The base tree is ${baseDir}. Each reportkit server runs twice, from this tree and from the base tree (its own servers/, on its own built packages), and the two are loaded in the same rounds and blocks, the same way. For the headline requests both are held against the floor loaded with them (reportkit's work written inline; bare on Express) and against each other, each ratio per round, by server CPU per request. Within a round the floor cancels out, so the last ratio is the first two divided round by round: above 1, this tree costs less. A row reads **no** when the whole IQR of that ratio lies below ${(1 - WORSE_BY_AT_MOST).toFixed(2)}: this tree worse by more than ${WORSE_BY_AT_MOST * 100}% beyond its spread.`,
    "",
  ];
  for (const [mode, rows] of rowsByMode) {
    report.push(`### ${MODE_TITLE[mode]}`, "", beforeAfterTable(beforeAfter(rows)), "");
  }
  return report;
}

function handleCostReport(costs: HandleCosts): string[] {
  return [
    "### Core's `handle` per DLR, in µs of CPU",
    "",
    `"${HANDLE_DLR}" as \`micro.mjs --iterations\` runs it: ${costs.iterations.toLocaleString("en-US")} calls after a quarter as many to warm up, in a fresh process per measurement, CPU time (\`process.cpuUsage\`) over the calls, ${costs.trees[0]?.micros.rounds ?? 0} rounds${costs.trees.length > 1 ? ", each measuring both trees (each from its own micro.mjs, on its own packages) in an order of its own" : ""}.`,
    "",
    handleCostTable(costs),
    "",
    ...costs.errors.map((error) => `Not measured: ${error}`),
    ...(costs.errors.length > 0 ? [""] : []),
  ];
}

export function resultsReport(run: MeasuredRun): string {
  const { date, loadAtStart, pinning, rounds, rowsByMode, nextTicks, micro, queueSection, notes } =
    run;
  const { minutes, handleCosts } = run;
  const memoryResult = run.memory;
  const headlineNames = [DLR.name, CALL.name];
  // The other sections are the concurrent mode's (the sequential one loads the headline only).
  const rows = rowsByMode.get("concurrent") ?? [];
  const dedupeRows = rows.filter((r) => r.scenario === DLR_UNIQUE_IDS.name);
  const telemetryRows = rows.filter((r) => r.scenario === DLR_TELEMETRY.name);
  const extraRows = rows.filter(
    (r) =>
      !headlineNames.includes(r.scenario) &&
      r.scenario !== DLR_UNIQUE_IDS.name &&
      r.scenario !== DLR_TELEMETRY.name,
  );
  const handle = micro.find((m) => m.name === HANDLE_DLR);
  const handleOps = handle?.opsPerSecond ?? Number.NaN;

  const report = [
    "# reportkit benchmarks",
    "",
    `Measured ${date} on ${machine()}.`,
    `Load average when the run began: ${loadAtStart.toFixed(2)}. ${pinning}.`,
    "",
    `Each server runs in its own process from built JavaScript (\`pnpm build\`, plain \`node\`); the load generator (\`loader.mjs\`, a minimal HTTP/1.1 client: keep-alive, one request in flight per connection, no pipelining) runs in another, on the other CPU. After a warm-up (each server alone), every round measures each mode below once: frameworks, comparisons and modes in a different order each round, and rounds stop once every headline ratio's interquartile range is within ±${TARGET_HALF_IQR * 100}% in every mode (at least ${PLAN.minRounds}, at most ${PLAN.maxRounds} rounds or ${PLAN.budgetMin} minutes). Server CPU is the server process's own \`process.cpuUsage()\` over a run divided by the requests it answered. An idle Node process is started after the servers: without it, the server started last read 11–20% cheaper than identical ones. Every request carries the bearer token and a report id of its own, so reportkit's default in-memory dedupe store claims and completes a key for each. Figures are medians over the rounds; spread is (max − min) / median of requests/s; non-2xx counts warm-up runs too and must be 0.`,
    "",
    "The same server processes are measured in two modes, which can read different ratios: concurrent (a comparison's servers loaded together, on one CPU) and sequential (one server at a time, alone on its CPU). The targets are judged in the sequential mode, the closer of the two to a receiver in production, one process per core (docs/performance.md).",
    "",
    "The servers of the headline requests (the field-notes DLR and call report, POST /webhooks):",
    "",
    "- **bare**: the framework's own JSON parsing and a 200.",
    "- **hand-written**: bare plus a constant-time bearer check and a zod parse of the report (10 or 11 fields).",
    "- **reportkit**: the adapter with its defaults (the in-memory dedupe store on), with handlers that only count.",
    "- **reportkit's work, inline** (Fastify, Hono): what reportkit does for these two reports, written in the route with nothing around it (constant-time bearer check, JSON.parse, identity, every field normalized, the three or two dates at +05:30, a report object, its dedupe key claimed and completed in a Map): the floor for that work (servers/inline-work.mjs).",
    "- **bare, in a plugin** (Fastify): the bare route in an encapsulated plugin of its own, as reportkit's route is.",
    "",
  ];
  for (const [mode, modeRows] of rowsByMode) report.push(...modeReport(mode, modeRows, rounds));
  report.push(...beforeAfterReport(rowsByMode));
  if (nextTicks.length > 0) report.push(...nextTickReport(nextTicks));
  if (extraRows.length > 0) {
    report.push(
      "## Other requests through each adapter",
      "",
      "A composed GET (values in the query) and a composed multipart form, on a server with those two composed webhooks.",
      "",
      httpTable(extraRows),
      "",
    );
  }
  if (dedupeRows.length > 0) {
    report.push(
      "## Deduplication: the DLR with a new id on every request",
      "",
      "Every request is a new report, so with a store each one claims its key before the handler and marks it done after: the store's whole cost per report. **dedupe off** is `dedupe: false`; **memory store** is the default; **Redis store** is `redisDedupe` on a local redis-server (not pinned, so it shares the CPUs with the server and the load generator); **Postgres inbox** is `postgresInbox` on a local PostgreSQL (fsync off, not pinned), each report in a transaction of its own (BEGIN with the key's INSERT, then COMMIT: two round trips) with a handler that writes nothing. Dedupe off and the memory store are loaded together; the Redis store's and the Postgres inbox's servers each on their own, since their database would take CPU from the others, so their ratios compare runs taken one after the other. Its CPU ratio is the receiving process's only: Postgres's own work is not in it.",
      "",
      httpTable(dedupeRows),
      "",
      dedupeRatioTable(dedupeRatios(dedupeRows.filter((r) => r.tree === "current"))),
      "",
    );
  }
  if (telemetryRows.length > 0) {
    report.push(
      "## Telemetry: the DLR with `telemetry: otelTelemetry()` against none",
      "",
      "**telemetry off** is the adapter's defaults (no `telemetry`: nothing is measured, and no telemetry code runs); **OpenTelemetry** adds `telemetry: otelTelemetry()` on the OpenTelemetry SDK as a service runs it (tracer and meter providers, the async-hooks context manager, a batch span processor and a periodic metric reader), with exporters that drop what they get (servers/otel-sdk.mjs): a span, a counter add and a histogram record per report, and the SDK's own work. The two are loaded together in each round.",
      "",
      httpTable(telemetryRows),
      "",
      telemetryTable(telemetryCosts(telemetryRows.filter((r) => r.tree === "current"))),
      "",
    );
  }
  if (micro.length > 0) {
    report.push(
      "## @reportkit/core micro-benchmarks (tinybench, one pinned core)",
      "",
      microTable(micro),
      "",
      `Target: \`Receiver.handle\` for a DLR given as a JSON string (auth + parse + validate + normalize + dedupe + dispatch) at least 1,000,000 ops/s: ${Math.round(handleOps).toLocaleString("en-US")} ops/s, ${handleOps >= 1_000_000 ? "met" : "**not met**"}.`,
      "",
      "Target: a rejected report costs at most 3× an accepted one (the DLR above):",
      "",
      ...micro
        .filter((m) => m.name.startsWith("Receiver.handle: rejected"))
        .map((m) => {
          const ratio = (m.nsPerOp ?? Number.NaN) / (handle?.nsPerOp ?? Number.NaN);
          return `- ${m.name.slice("Receiver.handle: ".length)}: ${ratio.toFixed(2)}× (${ratio <= 3 ? "met" : "**not met**"})`;
        }),
      "",
    );
  }
  if (handleCosts !== undefined) report.push(...handleCostReport(handleCosts));
  if (memoryResult !== undefined) report.push(...memoryReport(memoryResult));
  report.push(...queueSection);
  if (notes.length > 0) report.push(...notes.map((n) => `Not measured: ${n}`), "");
  report.push(`Run took ${minutes} min${quick ? " (--quick: a smoke run, not recorded)" : ""}.`);
  return report.join("\n");
}

/** Writes the report to RESULTS.md, keeping the notes below its marker; returns the path. */
export function writeResults(text: string): string {
  const file = join(here, "RESULTS.md");
  writeFileSync(file, `${text}\n\n${NOTES_MARKER}${keptNotes(file) || "\n"}`);
  return file;
}
