// In-process micro-benchmarks of @reportkit/core (the built dist, as users get it), with
// tinybench. Started by run.ts on one pinned CPU, once per task: `node micro.mjs --list`
// prints the task names, `node micro.mjs <index>` runs one and prints its result as JSON
// (`--all` runs them all in one process and prints the array).
// A fresh process per task keeps one task's object shapes from turning the next one's
// property accesses megamorphic, which a real receiver, seeing one or two shapes, never has.
// Each sample runs the operation BATCH times, so the timer's own cost (tens of nanoseconds)
// does not distort operations that take about a microsecond.
// The tasks are in micro-tasks.mjs, what they send in micro-requests.mjs, the memory run in
// micro-memory.mjs.
import { Bench } from "tinybench";
import { memory } from "./micro-memory.mjs";
import { fixtures } from "./micro-requests.mjs";
import { TASKS } from "./micro-tasks.mjs";

const BATCH = 100;

async function runTask(index) {
  const [name, setup] = TASKS[index] ?? [];
  if (setup === undefined) throw new Error(`No micro-benchmark number ${index}.`);
  const { run, async = false } = await setup();
  const bench = new Bench({
    time: fixtures.quick ? 80 : 700,
    warmupTime: fixtures.quick ? 30 : 200,
  });
  let failures = 0;
  if (async) {
    bench.add(name, async () => {
      for (let i = 0; i < BATCH; i++) if (!(await run())) failures++;
    });
  } else {
    bench.add(name, () => {
      for (let i = 0; i < BATCH; i++) if (!run()) failures++;
    });
  }
  await bench.run();
  const { latency, state, error } = bench.tasks[0].result;
  if (state !== "completed") return { name, error: String(error ?? state) };
  if (failures > 0)
    return { name, error: `${failures} operations did not give the expected answer` };
  const nsPerOp = (latency.p50 * 1e6) / BATCH;
  return { name, opsPerSecond: 1e9 / nsPerOp, nsPerOp, rme: latency.rme };
}

async function safely(index) {
  try {
    return await runTask(index);
  } catch (error) {
    return { name: TASKS[index]?.[0] ?? "?", error: String(error) };
  }
}

/**
 * `node micro.mjs --iterations <index> <n>`: the task's operation n times after n / 4 to warm
 * up, printing the process's CPU time per operation (process.cpuUsage, in ns): on a machine
 * shared with other work, CPU time moves far less than elapsed time, so A/B comparisons of a
 * change hold where tinybench's figures do not. Also the way to profile one operation
 * (`node --cpu-prof micro.mjs --iterations ...`).
 */
async function iterate(index, n) {
  const [name, setup] = TASKS[index] ?? [];
  if (setup === undefined) throw new Error(`No micro-benchmark number ${index}.`);
  const { run } = await setup();
  let failures = 0;
  for (let i = 0; i < n / 4; i++) if (!(await run())) failures++;
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) if (!(await run())) failures++;
  const { user, system } = process.cpuUsage(before);
  if (failures > 0) throw new Error(`${failures} operations did not give the expected answer`);
  const nsPerOp = ((user + system) * 1000) / n;
  process.stdout.write(`${JSON.stringify({ name, cpuNsPerOp: Math.round(nsPerOp) })}\n`);
}

const which = process.argv[2];
if (which === "--memory") {
  // Each in a process of its own (the argument after --memory), so neither inherits the
  // other's heap.
  const [small, large] = fixtures.quick ? [2_000, 20_000] : [10_000, 200_000];
  const variant =
    process.argv[3] === "off" ? ["dedupe: false", { dedupe: false }] : ["defaults", {}];
  process.stdout.write(`${JSON.stringify(await memory(small, large, ...variant))}\n`);
} else if (which === "--iterations") {
  await iterate(Number(process.argv[3]), Number(process.argv[4]));
} else if (which === "--list") {
  process.stdout.write(`${JSON.stringify(TASKS.map(([name]) => name))}\n`);
} else if (fixtures === null) {
  throw new Error("BENCH_FIXTURES is not set: run.ts starts this script.");
} else if (which === "--all") {
  // One process for every task: for the --quick smoke run, where isolation does not matter.
  const results = [];
  for (let index = 0; index < TASKS.length; index++) results.push(await safely(index));
  process.stdout.write(`${JSON.stringify(results)}\n`);
} else {
  process.stdout.write(`${JSON.stringify(await safely(Number(which)))}\n`);
}
