// The HTTP runs: a server process started and checked, then loaded together with the others
// of its comparison by the load generator (loader.mjs), each one's CPU read around the run.
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { baseDir, benchDir, CONNECTIONS, profile } from "./options.js";
import { LineProcess, SERVER_READY_MS } from "./processes.js";
import { COMPOSED_TEMPLATES, FIXTURES, type Scenario, UNIQUE } from "./scenarios.js";
import type { ServerSpec } from "./server-plan.js";
import type { Row, RunResult } from "./statistics.js";

export interface RunningServer {
  readonly spec: ServerSpec;
  readonly process: LineProcess;
  readonly port: number;
  /** 2xx answers the orchestrator itself got (sanity checks). */
  sanity2xx: number;
}

export async function startServer(
  spec: ServerSpec,
  pin: string[],
  profileDir: string,
  redisUrl: string | undefined,
  databaseUrl: string | undefined,
): Promise<RunningServer> {
  const node = [process.execPath];
  if (profile) node.push("--cpu-prof", `--cpu-prof-dir=${profileDir}`);
  // A base tree's server is its own servers/ (written for its own API), on its own packages.
  const dir = spec.tree === "base" ? join(baseDir as string, "test", "bench") : benchDir;
  const proc = new LineProcess(
    `${spec.framework} ${spec.variant} server${spec.tree === "base" ? " (base tree)" : ""}`,
    [...pin, ...node, join(dir, "servers", "server.mjs"), spec.module, spec.variant],
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
export async function startIdleProcess(pin: string[]): Promise<LineProcess> {
  const idle = new LineProcess(
    "idle process",
    [...pin, process.execPath, "-e", 'process.stdout.write("{}\\n"); process.stdin.resume();'],
    {},
  );
  await idle.next(30_000);
  return idle;
}

/** One real request of each kind first: a benchmark of wrong answers would be worthless. */
export async function sanityCheck(server: RunningServer): Promise<void> {
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
export function blockOf(row: Row): string {
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
export async function loadTogether(
  loader: LineProcess,
  targets: readonly { server: RunningServer; scenario: Scenario }[],
  duration: number,
  connections = CONNECTIONS,
): Promise<RunResult[]> {
  const servers = new Set(targets.map((t) => t.server));
  if (servers.size !== targets.length) throw new Error("one server twice in one block");
  const id = ++jobs;
  const ids = targets.map(() => ++jobs);
  const cpuBefore = await Promise.all(targets.map((t) => serverCpu(t.server)));
  const wallBefore = performance.now();
  loader.send({
    id,
    connections,
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
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed * 2654435761;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
