// pnpm bench [--quick | --smoke] [--only=<text>] [--no-micro] [--profile]
//
// reportkit against the bare framework and a hand-written receiver, side by side, in one run:
// every server in its own process, the load generator in another. Each round runs every
// configuration once, a framework's configurations back to back (so a ratio compares runs a
// few seconds apart, under the same load from the rest of the machine), frameworks and
// configurations in a different order each round; a ratio is computed within each round, and
// rounds go on until the interquartile range of every headline ratio is within ±5% (or the
// round or time budget is spent). Cost is the server's own CPU time per request, read from its
// process.cpuUsage() before and after each run. Every request carries a report id of its own
// (loader.mjs), so reportkit's default in-memory dedupe store claims and completes a key each
// time. Prints a markdown report and (except with --quick or --only) writes
// test/bench/RESULTS.md. Benchmarks are a tool, not tests: nothing here fails on a timing,
// only on a wrong answer.
//
// BENCH_DIR=<dir> runs the servers and micro-benchmarks from a copy of this folder instead
// (servers/, micro.mjs and a node_modules that resolves @reportkit/* to scratch builds): the
// way to measure a proposed fix to core or an adapter before making it. Nothing is recorded.

import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  hasPostgresServer,
  type PostgresServer,
  startPostgresServer,
} from "../support/postgres-server.js";
import { hasRedisServer, type RedisServer, startRedisServer } from "../support/redis-server.js";
import {
  choosePinning,
  LineProcess,
  SERVER_READY_MS,
  STARTING_AT_ONCE,
  settledInTurn,
} from "./processes.js";
import { queueBench } from "./queue.js";
import {
  controls,
  controlTable,
  dedupeRatios,
  dedupeRatioTable,
  halfIqr,
  httpTable,
  type MicroResult,
  microTable,
  type Row,
  type RunResult,
  ratios,
  ratioTable,
  summarize,
  telemetryCosts,
  telemetryTable,
} from "./report.js";
import {
  CALL,
  COMPOSED_GET,
  COMPOSED_TEMPLATES,
  composedMultipart,
  DLR,
  DLR_TELEMETRY,
  DLR_UNIQUE_IDS,
  FIXTURES,
  type Scenario,
  UNIQUE,
} from "./scenarios.js";

const here = dirname(fileURLToPath(import.meta.url));
/** Where servers/ and micro.mjs are run from (see BENCH_DIR above). */
const benchDir = process.env.BENCH_DIR ?? here;
const args = process.argv.slice(2);
const smoke = args.includes("--smoke");
const quick = smoke || args.includes("--quick");
const profile = args.includes("--profile");
const only = args.find((a) => a.startsWith("--only="))?.slice("--only=".length);
const withMicro = !args.includes("--no-micro");

const unknown = args.filter(
  (a) => !["--quick", "--smoke", "--profile", "--no-micro"].includes(a) && !a.startsWith("--only="),
);
if (unknown.length > 0) {
  console.error(
    `Unknown option ${unknown.join(" ")}. Use --quick, --smoke, --only=<text>, --no-micro, --profile.`,
  );
  process.exit(2);
}

/**
 * Seconds. Short runs, many rounds: a ratio of two runs seconds apart moves less with the
 * machine's other load than one of long runs minutes apart. The full run stays under about 10
 * minutes on 2 cores, --quick under 1.
 */
const PLAN = quick
  ? { minRounds: 1, maxRounds: 1, duration: 0.3, warmup: 0.3, extraWarmup: 0.2, budgetMin: 1 }
  : { minRounds: 8, maxRounds: 24, duration: 1, warmup: 2, extraWarmup: 1, budgetMin: 9 };
/** Rounds stop once every headline ratio's half interquartile range is within this share. */
const TARGET_HALF_IQR = 0.05;
const CONNECTIONS = 10;
type Variant =
  | "bare"
  | "bare-twin"
  | "bare-plugin"
  | "hand-written"
  | "inline-work"
  | "reportkit"
  | "reportkit-composed"
  | "reportkit-dedupe-off"
  | "reportkit-dedupe-memory"
  | "reportkit-dedupe-redis"
  | "reportkit-dedupe-postgres"
  | "reportkit-telemetry-off"
  | "reportkit-telemetry-otel";
interface ServerSpec {
  readonly framework: string;
  readonly module: string;
  readonly variant: Variant;
  readonly scenarios: readonly Scenario[];
}

const ALL_FRAMEWORKS = [
  { label: "Express 5", module: "express", adapter: "@reportkit/express" },
  { label: "Fastify 5", module: "fastify", adapter: "@reportkit/fastify" },
  { label: "Hono 4 (node-server)", module: "hono", adapter: "@reportkit/hono" },
] as const;
/** --smoke: Fastify alone, the one framework with every kind of server. */
const FRAMEWORKS = smoke ? ALL_FRAMEWORKS.filter((fw) => fw.module === "fastify") : ALL_FRAMEWORKS;

function adapterInstalled(adapter: string): boolean {
  const dir = join(dirname(benchDir), "node_modules", adapter);
  if (!existsSync(join(dir, "package.json"))) return false;
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const entry = pkg.exports?.["."]?.default;
  return typeof entry === "string" && existsSync(join(dir, entry));
}

async function plan(): Promise<{ servers: ServerSpec[]; notes: string[] }> {
  const multipart = await composedMultipart();
  const notes: string[] = [];
  const servers: ServerSpec[] = [
    { framework: "node:http", module: "raw-node", variant: "bare", scenarios: [DLR] },
  ];
  for (const fw of FRAMEWORKS) {
    servers.push({
      framework: fw.label,
      module: fw.module,
      variant: "bare",
      scenarios: [DLR, CALL],
    });
    // The same bare server in a second process, loaded with the others: its ratio to the
    // first is the method's own error, which no difference between servers means much below.
    servers.push({
      framework: fw.label,
      module: fw.module,
      variant: "bare-twin",
      scenarios: [DLR, CALL],
    });
    if (fw.module === "fastify") {
      // Fastify's bare route in a plugin of its own: what encapsulation alone costs, as
      // reportkit's route needs it for its body parsers.
      servers.push({
        framework: fw.label,
        module: fw.module,
        variant: "bare-plugin",
        scenarios: [DLR, CALL],
      });
    }
    servers.push({
      framework: fw.label,
      module: fw.module,
      variant: "hand-written",
      scenarios: [DLR, CALL],
    });
    if (fw.module !== "express") {
      // reportkit's work written inline: what a receiver doing that work could reach.
      servers.push({
        framework: fw.label,
        module: fw.module,
        variant: "inline-work",
        scenarios: [DLR, CALL],
      });
    }
    if (!adapterInstalled(fw.adapter)) {
      notes.push(`${fw.label}: ${fw.adapter} is not installed and built, so not measured.`);
      continue;
    }
    servers.push({
      framework: fw.label,
      module: fw.module,
      variant: "reportkit",
      scenarios: [DLR, CALL],
    });
    servers.push({
      framework: fw.label,
      module: fw.module,
      variant: "reportkit-composed",
      scenarios: [COMPOSED_GET, multipart],
    });
    const stores: Variant[] = ["reportkit-dedupe-off", "reportkit-dedupe-memory"];
    if (hasRedisServer) stores.push("reportkit-dedupe-redis");
    else
      notes.push(
        `${fw.label}: redis-server is not installed, so the Redis dedupe store is not measured.`,
      );
    if (hasPostgresServer) stores.push("reportkit-dedupe-postgres");
    else
      notes.push(
        `${fw.label}: PostgreSQL is not installed, so the Postgres inbox is not measured.`,
      );
    for (const variant of stores) {
      servers.push({
        framework: fw.label,
        module: fw.module,
        variant,
        scenarios: [DLR_UNIQUE_IDS],
      });
    }
    if (!adapterInstalled("@reportkit/otel")) {
      notes.push(
        `${fw.label}: @reportkit/otel is not installed and built, so telemetry is not measured.`,
      );
      continue;
    }
    for (const variant of ["reportkit-telemetry-off", "reportkit-telemetry-otel"] as const) {
      servers.push({ framework: fw.label, module: fw.module, variant, scenarios: [DLR_TELEMETRY] });
    }
  }
  const selected =
    only === undefined
      ? servers
      : servers.filter((s) =>
          `${s.framework} ${s.module} ${s.variant}`.toLowerCase().includes(only.toLowerCase()),
        );
  return { servers: selected, notes };
}

interface RunningServer {
  readonly spec: ServerSpec;
  readonly process: LineProcess;
  readonly port: number;
  /** 2xx answers the orchestrator itself got (sanity checks). */
  sanity2xx: number;
}

async function startServer(
  spec: ServerSpec,
  pin: string[],
  profileDir: string,
  redisUrl: string | undefined,
  databaseUrl: string | undefined,
): Promise<RunningServer> {
  const node = [process.execPath];
  if (profile) node.push("--cpu-prof", `--cpu-prof-dir=${profileDir}`);
  const proc = new LineProcess(
    `${spec.framework} ${spec.variant} server`,
    [...pin, ...node, join(benchDir, "servers", "server.mjs"), spec.module, spec.variant],
    {
      BENCH_TOKEN: FIXTURES.token,
      BENCH_COMPOSED: JSON.stringify(COMPOSED_TEMPLATES),
      NODE_ENV: "production",
      ...(redisUrl === undefined ? {} : { BENCH_REDIS_URL: redisUrl }),
      ...(databaseUrl === undefined ? {} : { BENCH_DATABASE_URL: databaseUrl }),
    },
  );
  try {
    const { port } = await proc.next<{ port: number }>(SERVER_READY_MS, "its port");
    return { spec, process: proc, port, sanity2xx: 0 };
  } catch (error) {
    proc.kill();
    throw error;
  }
}

/**
 * An idle Node process started after the servers, on their CPU, that lives as long as they do.
 * Without it, of three identical Fastify servers loaded together, the one started last read
 * 11–20% less CPU per request than the others in each of 5 runs; with it, that bias was gone in
 * 4 runs of 4 on a quiet machine. The cause is not known (an idle `sleep` in its place did not
 * help). On a busy machine identical processes still differed by 9–20%, whichever started
 * last: the bare server's second process measures that in every run (see its table).
 */
async function startIdleProcess(pin: string[]): Promise<LineProcess> {
  const idle = new LineProcess(
    "idle process",
    [...pin, process.execPath, "-e", 'process.stdout.write("{}\\n"); process.stdin.resume();'],
    {},
  );
  await idle.next(30_000);
  return idle;
}

/** One real request of each kind first: a benchmark of wrong answers would be worthless. */
async function sanityCheck(server: RunningServer): Promise<void> {
  for (const scenario of server.spec.scenarios) {
    const url = `http://127.0.0.1:${server.port}${scenario.path}`;
    // A new id where the load generator puts one: the Redis store's servers share one Redis,
    // so a literal id would be a duplicate (handler not run) on every server but the first.
    // A fresh id here too: the Redis store's servers share one Redis.
    const body =
      scenario.body === undefined
        ? undefined
        : new TextDecoder().decode(scenario.body).replaceAll(UNIQUE, randomUUID());
    const init = { method: scenario.method, headers: scenario.headers, body };
    const good = await fetch(url, init);
    const text = await good.text();
    if (good.status !== 200) {
      throw new Error(
        `${server.spec.framework} ${server.spec.variant}, ${scenario.name}: expected 200, got ${good.status} ${text.slice(0, 300)}`,
      );
    }
    server.sanity2xx++;
    if (server.spec.variant.startsWith("bare") || server.spec.framework === "node:http") continue;
    const headers = { ...scenario.headers, authorization: "Bearer not-the-token" };
    const wrong = await fetch(url, { ...init, headers });
    await wrong.text();
    if (wrong.status !== 401) {
      throw new Error(
        `${server.spec.framework} ${server.spec.variant}, ${scenario.name}: a wrong token got ${wrong.status}, not 401`,
      );
    }
  }
}

/** The server's own CPU time so far (user + system, µs), as its process.cpuUsage() says. */
async function serverCpu(server: RunningServer): Promise<number> {
  server.process.send({ cmd: "cpu" });
  const { cpu } = await server.process.next<{ cpu: number }>(10_000);
  return cpu;
}

let jobs = 0;

/**
 * Which comparison a row is loaded together with: its request's. The Redis store's and the
 * Postgres inbox's servers run on their own, since the redis-server or postgres beside them (not
 * pinned) would take CPU from the others.
 */
function blockOf(row: Row): string {
  if (row.server === "reportkit, Redis store") return `${row.scenario} (Redis)`;
  if (row.server === "reportkit, Postgres inbox") return `${row.scenario} (Postgres)`;
  return row.scenario;
}

/**
 * Loads several servers at once, for the same time (one job, each server with connections of
 * its own), and measures each one's CPU per request over that same window: the servers of one
 * comparison then share whatever else the machine does while they run, which a ratio of runs
 * taken one after the other does not cancel.
 */
async function loadTogether(
  loader: LineProcess,
  targets: readonly { server: RunningServer; scenario: Scenario }[],
  duration: number,
): Promise<RunResult[]> {
  const servers = new Set(targets.map((t) => t.server));
  if (servers.size !== targets.length) throw new Error("one server twice in one block");
  const id = ++jobs;
  const ids = targets.map(() => ++jobs);
  const cpuBefore = await Promise.all(targets.map((t) => serverCpu(t.server)));
  const wallBefore = performance.now();
  loader.send({
    id,
    connections: CONNECTIONS,
    duration,
    targets: targets.map(({ server, scenario }, i) => ({
      id: ids[i],
      url: `http://127.0.0.1:${server.port}${scenario.path}`,
      method: scenario.method,
      headers: scenario.headers,
      body: scenario.body === undefined ? undefined : Buffer.from(scenario.body).toString("base64"),
    })),
  });
  const answer = await loader.next<{ id: number; error?: string; results?: RunResult[] }>(
    duration * 1000 + 30_000,
  );
  if (answer.error !== undefined) throw new Error(`load generator: ${answer.error}`);
  if (answer.id !== id || answer.results?.length !== targets.length) {
    throw new Error(`load generator answered job ${answer.id}, not ${id}`);
  }
  const wallSeconds = (performance.now() - wallBefore) / 1000;
  const cpuAfter = await Promise.all(targets.map((t) => serverCpu(t.server)));
  return answer.results.map((result, i) => {
    const micros = (cpuAfter[i] as number) - (cpuBefore[i] as number);
    result.serverCpu = micros / 1e6 / wallSeconds;
    if (result.requests > 0) result.serverCpuPerRequest = micros / result.requests;
    return result;
  });
}

/** The same order would favour whoever runs first after a pause; each round has its own. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed * 2654435761;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

const DEDUPE_LABELS = {
  "reportkit-dedupe-off": "reportkit, dedupe off",
  "reportkit-dedupe-memory": "reportkit, memory store",
  "reportkit-dedupe-redis": "reportkit, Redis store",
  "reportkit-dedupe-postgres": "reportkit, Postgres inbox",
  "reportkit-telemetry-off": "reportkit, telemetry off",
  "reportkit-telemetry-otel": "reportkit, OpenTelemetry",
} as const;

function serverLabel(variant: Variant): Row["server"] {
  if (variant === "reportkit-composed") return "reportkit";
  if (variant === "bare-twin") return "bare, second process";
  if (variant === "bare-plugin") return "bare, in a plugin";
  if (variant === "inline-work") return "reportkit's work, inline";
  if (variant in DEDUPE_LABELS) return DEDUPE_LABELS[variant as keyof typeof DEDUPE_LABELS];
  return variant as Row["server"];
}

/** What micro.mjs --memory measured: one receiver's RSS after a few and after many requests. */
interface MemoryResult {
  readonly label: string;
  readonly small: number;
  readonly large: number;
  readonly rssSmall: number;
  readonly rssLarge: number;
  readonly heapSmall: number;
  readonly heapLarge: number;
  readonly keysSmall: number;
  readonly keysLarge: number;
  /** The young generation: V8's default (grows), or pre-sized. */
  readonly young?: "default" | "presized";
}

/**
 * V8's young generation: by default it starts small and grows (up to 16 MB per semi-space)
 * as a process allocates, whatever keeps memory or not; pre-sized, the same generation from
 * the start, so that RSS growth is what the receiver itself keeps.
 */
const YOUNG_GENERATION = {
  default: [],
  presized: ["--min-semi-space-size=16"],
} as const;

async function runMemory(pin: string[]): Promise<MemoryResult[]> {
  const results: MemoryResult[] = [];
  for (const young of ["default", "presized"] as const) {
    for (const variant of ["default", "off"]) {
      const proc = new LineProcess(
        "memory benchmark",
        [
          ...pin,
          process.execPath,
          "--expose-gc",
          ...YOUNG_GENERATION[young],
          join(benchDir, "micro.mjs"),
          "--memory",
          variant,
        ],
        { BENCH_FIXTURES: JSON.stringify({ ...FIXTURES, quick }) },
      );
      const result = await proc.next<MemoryResult>(300_000);
      results.push({ ...result, young });
      await proc.stop();
    }
  }
  return results;
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

/** What one server process's `process.nextTick` cost, asked after the rounds. */
interface NextTickCost {
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
      costs.map(({ server, ns }) => [
        server.framework,
        serverLabel(server.variant),
        server.scenarios.map((scenario) => scenario.name).join(", "),
        ns > SLOW_NEXT_TICK_NS ? `**${ns.toFixed(0)} (slow)**` : ns.toFixed(0),
      ]),
    ),
    "",
  ];
}

function table(header: string[], rows: string[][]): string {
  const rule = header.map((_, i) => (i === 0 ? "---" : "---:"));
  return [header, rule, ...rows].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}

/** Each micro-benchmark in a fresh process (see micro.mjs), one after the other. */
async function runMicro(pin: string[]): Promise<MicroResult[]> {
  const script = join(benchDir, "micro.mjs");
  const env = { BENCH_FIXTURES: JSON.stringify({ ...FIXTURES, quick }) };
  if (quick) {
    const all = new LineProcess(
      "micro-benchmarks",
      [...pin, process.execPath, script, "--all"],
      env,
    );
    const results = await all.next<MicroResult[]>(60_000);
    await all.stop();
    return results;
  }
  const lister = new LineProcess("micro-benchmarks", [process.execPath, script, "--list"], env);
  const names = await lister.next<string[]>(30_000);
  await lister.stop();
  const results: MicroResult[] = [];
  for (const [index, name] of names.entries()) {
    const proc = new LineProcess(
      `micro-benchmark "${name}"`,
      [...pin, process.execPath, script, String(index)],
      env,
    );
    results.push(await proc.next<MicroResult>(60_000));
    await proc.stop();
  }
  return results;
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

async function main(): Promise<number> {
  const started = Date.now();
  const date = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const loadAtStart = loadavg()[0] ?? 0;
  const pinning = choosePinning();
  const { servers: specs, notes } = await plan();
  for (const note of notes) console.error(`note: ${note}`);

  let micro: MicroResult[] = [];
  let memoryResult: MemoryResult[] | undefined;
  if (withMicro) {
    console.error("micro-benchmarks of @reportkit/core ...");
    micro = await runMicro(pinning.server);
    console.error("memory of one receiver ...");
    memoryResult = await runMemory(pinning.server);
  }

  const profileDir = join(here, "profiles");
  if (profile) mkdirSync(profileDir, { recursive: true });
  const running: RunningServer[] = [];
  const children: LineProcess[] = [];
  const killAll = () => {
    for (const child of children) child.kill();
  };
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    process.on(signal, () => {
      killAll();
      process.exit(code);
    });
  }

  // One redis-server for the Redis store's servers (unpinned: it runs beside them).
  let redis: RedisServer | undefined;
  // One PostgreSQL cluster for the Postgres inbox's servers (unpinned, as Redis).
  let postgres: PostgresServer | undefined;
  const rows: Row[] = [];
  let rounds = 0;
  const rowServer = new Map<Row, RunningServer>();
  const nextTicks: NextTickCost[] = [];
  const rowScenario = new Map<Row, Scenario>();
  let failed = false;
  try {
    if (specs.some((spec) => spec.variant === "reportkit-dedupe-redis")) {
      redis = await startRedisServer();
    }
    if (specs.some((spec) => spec.variant === "reportkit-dedupe-postgres")) {
      postgres = await startPostgresServer();
    }
    console.error(
      `starting ${specs.length} servers, ${STARTING_AT_ONCE} at a time (${pinning.description}) ...`,
    );
    const starts = await settledInTurn(specs, STARTING_AT_ONCE, async (spec) => {
      const server = await startServer(spec, pinning.server, profileDir, redis?.url, postgres?.url);
      console.error(`started: ${spec.framework} ${spec.variant} on port ${server.port}`);
      return server;
    });
    for (const result of starts) {
      if (result.status === "fulfilled") children.push(result.value.process);
    }
    const notStarted = starts.flatMap((result) =>
      result.status !== "rejected"
        ? []
        : [result.reason instanceof Error ? result.reason.message : String(result.reason)],
    );
    if (notStarted.length > 0) {
      throw new Error(
        `${notStarted.length} of ${specs.length} benchmark servers did not start:\n${notStarted.join("\n\n")}`,
      );
    }
    for (const result of starts) if (result.status === "fulfilled") running.push(result.value);
    for (const server of running) await sanityCheck(server);
    const idle = await startIdleProcess(pinning.server);
    children.push(idle);

    const loader = new LineProcess(
      "load generator",
      [...pinning.loader, process.execPath, join(here, "loader.mjs")],
      {},
    );
    children.push(loader);

    for (const server of running) {
      for (const [index, scenario] of server.spec.scenarios.entries()) {
        const row: Row = {
          framework: server.spec.framework,
          server: serverLabel(server.spec.variant),
          scenario: scenario.name,
          runs: [],
          warmups: [],
        };
        rows.push(row);
        rowServer.set(row, server);
        rowScenario.set(row, scenario);
        // The first request kind of each server gets the long warm-up (it compiles the path).
        const warmup = index === 0 ? PLAN.warmup : PLAN.extraWarmup;
        console.error(`warm-up: ${row.framework} ${row.server}, ${row.scenario}`);
        const [result] = await loadTogether(loader, [{ server, scenario }], warmup);
        row.warmups.push(result as RunResult);
      }
    }

    // A framework's configurations run back to back, so its ratios compare runs seconds apart.
    const groups = [...new Set(rows.map((row) => row.framework))].map((framework) =>
      rows.filter((row) => row.framework === framework),
    );
    const headline = () =>
      ratios(
        rows.filter((row) => row.scenario === DLR.name || row.scenario === CALL.name),
        [DLR.name, CALL.name],
      );
    const deadline = started + PLAN.budgetMin * 60_000;
    for (let round = 1; round <= PLAN.maxRounds; round++) {
      for (const group of shuffled(groups, round)) {
        // The rows a ratio compares (one request's bare, hand-written and reportkit servers;
        // the dedupe variants) are loaded together, for the same second, all on the servers'
        // CPU: each one's cost is then measured under the same conditions as the others'.
        const blocks = [...new Set(group.map(blockOf))].map((block) =>
          group.filter((row) => blockOf(row) === block),
        );
        for (const block of shuffled(blocks, round * 31 + group.length)) {
          const results = await loadTogether(
            loader,
            block.map((row) => ({
              server: rowServer.get(row) as RunningServer,
              scenario: rowScenario.get(row) as Scenario,
            })),
            PLAN.duration,
          );
          for (const [i, row] of block.entries()) {
            const result = results[i] as RunResult;
            row.runs.push(result);
            console.error(
              `round ${round}: ${row.framework} ${row.server}, ${row.scenario}: ${Math.round(result.rps)} req/s, ${result.serverCpuPerRequest?.toFixed(1)} µs CPU/req${result.non2xx > 0 ? `, ${result.non2xx} non-2xx` : ""}`,
            );
          }
        }
      }
      rounds = round;
      if (round < PLAN.minRounds) continue;
      // The targets' ratios decide; the ones that only explain them (no target) do not.
      const widest = Math.max(
        ...headline()
          .filter((r) => r.target !== undefined)
          .map((r) => halfIqr(r.byCpu)),
      );
      console.error(`after round ${round}: widest headline IQR ±${(widest * 100).toFixed(1)}%`);
      if (!(widest > TARGET_HALF_IQR)) break;
      if (Date.now() > deadline) {
        console.error("time budget spent: stopping with the rounds so far");
        break;
      }
    }
    await loader.stop();
    await idle.stop();

    for (const server of running) {
      server.process.send({ cmd: "ticks" });
      const { ticks } = await server.process.next<{ ticks: number }>(10_000);
      nextTicks.push({ server: server.spec, ns: ticks });
    }

    // Every 2xx the load generator counted must have reached the server's handler.
    for (const server of running) {
      const final = await server.process.stop<{ handled?: number }>();
      const counted =
        server.sanity2xx +
        rows
          .filter((row) => rowServer.get(row) === server)
          .reduce((n, row) => n + summarize(row).ok2xx, 0);
      if (final?.handled === undefined || final.handled < counted) {
        console.error(
          `${server.spec.framework} ${server.spec.variant}: answered ${counted} requests 2xx but its handler ran ${final?.handled ?? "?"} times.`,
        );
        failed = true;
      }
    }
  } catch (error) {
    killAll();
    throw error;
  } finally {
    await redis?.close();
    await postgres?.close();
  }

  for (const row of rows) {
    const s = summarize(row);
    if (s.non2xx + s.failures > 0) {
      console.error(
        `${row.framework} ${row.server}, ${row.scenario}: ${s.non2xx} non-2xx, ${s.failures} errors/timeouts.`,
      );
      failed = true;
    }
  }

  // Queue mode last, with the other servers stopped: its own servers, Redis and worker.
  let queueSection: string[] = [];
  if (only === undefined || "queue mode bullmq".includes(only.toLowerCase())) {
    const queue = await queueBench(
      benchDir,
      {
        frameworks: FRAMEWORKS.map((fw) => fw.module),
        quick,
        rounds: PLAN.minRounds,
        duration: PLAN.duration,
        warmup: PLAN.warmup,
        connections: CONNECTIONS,
      },
      pinning,
    );
    queueSection = queue.markdown;
    if (queue.failed) failed = true;
  }

  const headlineNames = [DLR.name, CALL.name];
  const dlrRows = rows.filter((r) => headlineNames.includes(r.scenario));
  const dedupeRows = rows.filter((r) => r.scenario === DLR_UNIQUE_IDS.name);
  const telemetryRows = rows.filter((r) => r.scenario === DLR_TELEMETRY.name);
  const extraRows = rows.filter(
    (r) =>
      !headlineNames.includes(r.scenario) &&
      r.scenario !== DLR_UNIQUE_IDS.name &&
      r.scenario !== DLR_TELEMETRY.name,
  );
  const handle = micro.find((m) => m.name === "Receiver.handle: DLR, JSON string body");
  const handleOps = handle?.opsPerSecond ?? Number.NaN;
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);

  const report = [
    "# reportkit benchmarks",
    "",
    `Measured ${date} on ${machine()}.`,
    `Load average when the run began: ${loadAtStart.toFixed(2)}. ${pinning.description}.`,
    "",
    `Each server runs in its own process from built JavaScript (\`pnpm build\`, plain \`node\`); the load generator (\`loader.mjs\`, a minimal HTTP/1.1 client: keep-alive, one request in flight per connection, no pipelining) runs in another, on the other CPU. After a warm-up, ${rounds} rounds of ${PLAN.duration} s per configuration: in a round, the servers one comparison is made of (one request's bare, hand-written and reportkit servers, a second process of the bare one as a control, reportkit's work written inline on Fastify and Hono, the bare route in a plugin on Fastify; the dedupe variants) are loaded together, for the same second, each by its own ${CONNECTIONS} connections, all of them on the servers' CPU, so each one's cost is measured while the machine does the same other work for all; frameworks and comparisons run in a different order each round, and rounds stop once every headline ratio's interquartile range is within ±${TARGET_HALF_IQR * 100}% (at least ${PLAN.minRounds}, at most ${PLAN.maxRounds} rounds or ${PLAN.budgetMin} minutes). Server CPU is the server process's own \`process.cpuUsage()\` over a run divided by the requests it answered. An idle Node process is started after the servers: without it, the server started last read 11–20% cheaper than identical ones. Every request carries the bearer token and a report id of its own, so reportkit's default in-memory dedupe store claims and completes a key for each. Figures are medians over the rounds; spread is (max − min) / median of requests/s; non-2xx counts warm-up runs too and must be 0.`,
    "",
    "## HTTP: the field-notes DLR and call report, POST /webhooks",
    "",
    "- **bare**: the framework's own JSON parsing and a 200.",
    "- **hand-written**: bare plus a constant-time bearer check and a zod parse of the report (10 or 11 fields).",
    "- **reportkit**: the adapter with its defaults (the in-memory dedupe store on), with handlers that only count.",
    "- **reportkit's work, inline** (Fastify, Hono): what reportkit does for these two reports, written in the route with nothing around it (constant-time bearer check, JSON.parse, identity, every field normalized, the three or two dates at +05:30, a report object, its dedupe key claimed and completed in a Map): the floor for that work (servers/inline-work.mjs).",
    "- **bare, in a plugin** (Fastify): the bare route in an encapsulated plugin of its own, as reportkit's route is.",
    "",
    httpTable(dlrRows),
    "",
    "## Ratios, each computed within a round; median and interquartile range over the rounds",
    "",
    "By server CPU per request: the other server's µs / reportkit's (above 1: reportkit costs less). By req/s: reportkit's / the other's. The target applies to the CPU ratio, the steadier of the two on a shared machine.",
    "",
    ratioTable(ratios(dlrRows, headlineNames)),
    "",
    "### The method's own error: the bare server against a second process of itself",
    "",
    "Loaded in the same rounds as the rows above. Identical code, so any distance from 1.00 is what this method reads as a difference where there is none: a ratio above is only as good as this.",
    "",
    controlTable(controls(dlrRows, headlineNames)),
    "",
  ];
  const plugin = controls(dlrRows, headlineNames, "bare, in a plugin");
  if (plugin.length > 0) {
    report.push(
      "### Fastify: what an encapsulated plugin costs by itself",
      "",
      "reportkit's route lives in an encapsulated plugin, since it brings body parsers of its own. The bare route in a plugin of its own, against the bare route, loaded in the same rounds (below 1: the plugin's costs more). A Fastify 5 process with an encapsulated plugin draws a megamorphic `process.nextTick` early more often than one without (see the notes), which costs every request about 5 µs more whatever its route, so this ratio moves from run to run; the next table says which processes of this run were in that state at its end. The ratio table above also gives reportkit against this route.",
      "",
      controlTable(plugin),
      "",
    );
  }
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
      dedupeRatioTable(dedupeRatios(dedupeRows)),
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
      telemetryTable(telemetryCosts(telemetryRows)),
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
  if (memoryResult !== undefined) report.push(...memoryReport(memoryResult));
  report.push(...queueSection);
  if (notes.length > 0) report.push(...notes.map((n) => `Not measured: ${n}`), "");
  report.push(`Run took ${minutes} min${quick ? " (--quick: a smoke run, not recorded)" : ""}.`);
  const text = report.join("\n");
  console.log(text);

  if (!quick && only === undefined && !failed && benchDir === here) {
    const file = join(here, "RESULTS.md");
    writeFileSync(file, `${text}\n\n${NOTES_MARKER}${keptNotes(file) || "\n"}`);
    console.error(`written to ${file}`);
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
