// node --import tsx test/bench/instructions.ts <framework> <variant> [dlr | call]
//      [--seconds=<s>] [--chunks=<n>] [--warmup=<requests>] [--connections=<n>]
//
// User-space instructions per request of one benchmark server, counted by Valgrind's callgrind:
// the server (servers/server.mjs, from BENCH_DIR as run.ts would run it) under callgrind with
// instrumentation off while it starts and answers `warmup` requests (V8 compiles the path),
// then on for `chunks` loads of `seconds` each, the counters dumped after each. Every thread
// counts (V8's compiler and GC helpers too). An instruction count hardly moves with what else
// the machine runs, where CPU time swings by 10% or more on a shared machine: the way to
// compare two ways of writing a route (a variant of a scratch BENCH_DIR's servers) a few
// percent apart. What it leaves out: the kernel's share (syscalls, the socket writes), which
// CPU time includes. Under callgrind the server runs about 100 times slower, so every
// connection always has a request waiting, as in a saturated server: the figure is the batched
// cost. A major GC lands in some chunks and not others (about 20% of a chunk's count when it
// does), so chunks should be long, and the median of several is the figure.
//
// Node runs with --no-memory-reducer: the reducer starts GCs on a clock, and a clock 100 times
// slower than the requests would charge each request for many more of them than natively.
//
// Each dump is kept (callgrind.<pid>.<n> in a temporary folder it names):
// `callgrind_annotate <file>` lists the native functions (V8's builtins, runtime and GC, libuv,
// Node's C++); code V8 compiled at run time shows as ???, to be read with --cpu-prof instead.
// Nothing is pinned: a count does not depend on the CPU, so several can run at once. Needs
// valgrind; prints one JSON line per chunk on stderr and a summary line on stdout.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { loadTogether, type RunningServer } from "./http-load.js";
import { benchDir, here } from "./options.js";
import { LineProcess } from "./processes.js";
import { CALL, COMPOSED_TEMPLATES, DLR, FIXTURES } from "./scenarios.js";
import { spread } from "./statistics.js";

const run = promisify(execFile);
const [framework, variant, request = "dlr", ...rest] = process.argv
  .slice(2)
  .filter((a) => !a.startsWith("--"));
const option = (name: string, fallback: number) => {
  const given = process.argv.find((a) => a.startsWith(`--${name}=`));
  return given === undefined ? fallback : Number(given.slice(name.length + 3));
};
if (framework === undefined || variant === undefined || rest.length > 0) {
  console.error(
    "Usage: instructions.ts <framework> <variant> [dlr | call] [--seconds=<s>] [--chunks=<n>] [--warmup=<s>] [--connections=<n>]",
  );
  process.exit(2);
}
const scenario = request === "call" ? CALL : DLR;
const seconds = option("seconds", 20);
const chunks = option("chunks", 5);
const warmup = option("warmup", 20_000);
const connections = option("connections", 10);

/** Ir, the instructions a callgrind dump counted. */
function instructionsIn(file: string): number {
  const match = /^(?:summary|totals): (\d+)/m.exec(readFileSync(file, "utf8"));
  if (match === null) throw new Error(`${file} has no summary line: not a callgrind dump?`);
  return Number(match[1]);
}

async function main(): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), "reportkit-callgrind-"));
  const proc = new LineProcess(
    `${framework} ${variant} server under callgrind`,
    [
      "valgrind",
      "--tool=callgrind",
      "--instr-atstart=no",
      `--callgrind-out-file=${join(out, "callgrind.%p")}`,
      process.execPath,
      "--no-memory-reducer",
      join(benchDir, "servers", "server.mjs"),
      framework as string,
      variant as string,
    ],
    {
      BENCH_TOKEN: FIXTURES.token,
      BENCH_COMPOSED: JSON.stringify(COMPOSED_TEMPLATES),
      NODE_ENV: "production",
    },
  );
  const loader = new LineProcess(
    "load generator",
    [process.execPath, join(here, "loader.mjs")],
    {},
  );
  try {
    const { port } = await proc.next<{ port: number }>(300_000, "its port");
    const pid = String(proc.child.pid);
    const server: RunningServer = {
      spec: {
        framework: framework as string,
        module: framework as string,
        variant: "bare",
        scenarios: [scenario],
      },
      process: proc,
      port,
      sanity2xx: 0,
    };
    const load = async (s: number) => {
      const [result] = await loadTogether(loader, [{ server, scenario }], s, connections);
      if (result === undefined || result.non2xx + result.errors + result.timeouts > 0) {
        throw new Error(
          `${framework} ${variant}: not every request answered 2xx: ${JSON.stringify(result)}`,
        );
      }
      return result.requests;
    };
    console.error(`warm-up, ${warmup} requests, uninstrumented ...`);
    for (let answered = 0; answered < warmup; ) answered += await load(10);
    await run("callgrind_control", ["--instr=on", pid]);
    await run("callgrind_control", ["--zero", pid]);
    const perRequest: number[] = [];
    for (let chunk = 1; chunk <= chunks; chunk++) {
      const requests = await load(seconds);
      await run("callgrind_control", [`--dump=chunk ${chunk}`, pid]);
      const file = join(out, `callgrind.${pid}.${chunk}`);
      const ir = instructionsIn(file);
      perRequest.push(ir / requests);
      console.error(
        JSON.stringify({
          chunk,
          requests,
          instructions: ir,
          perRequest: Math.round(ir / requests),
          file,
        }),
      );
    }
    const s = spread(perRequest);
    console.log(
      JSON.stringify({
        framework,
        variant,
        request: scenario.name,
        connections,
        instructionsPerRequest: Math.round(s.median),
        q1: Math.round(s.q1),
        q3: Math.round(s.q3),
        chunks: s.rounds,
        dumps: out,
      }),
    );
  } finally {
    await loader.stop();
    await proc.stop(60_000);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
