// In-process micro-benchmarks of @reportkit/core (the built dist, as users get it), with
// tinybench. Started by run.ts on one pinned CPU, once per task: `node micro.mjs --list`
// prints the task names, `node micro.mjs <index>` runs one and prints its result as JSON
// (`--all` runs them all in one process and prints the array).
// A fresh process per task keeps one task's object shapes from turning the next one's
// property accesses megamorphic, which a real receiver, seeing one or two shapes, never has.
// Each sample runs the operation BATCH times, so the timer's own cost (tens of nanoseconds)
// does not distort operations that take about a microsecond.
import { checkBearer, createReceiver, parseReport } from "@reportkit/core";
import { Bench } from "tinybench";
import { DeliveryReport } from "./servers/hand-written.mjs";

const BATCH = 100;
const fixtures = JSON.parse(process.env.BENCH_FIXTURES ?? "null");

const strings = (report) =>
  Object.fromEntries(Object.entries(report).map(([key, value]) => [key, String(value)]));
const authorization = () => `Bearer ${fixtures.token}`;

function request(contentType, body, extra) {
  return {
    method: "POST",
    url: "/webhooks",
    headers: { authorization: authorization(), "content-type": contentType, host: "127.0.0.1" },
    body,
    ...extra,
  };
}

async function multipart(fields) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  const encoded = new Response(form);
  return {
    type: encoded.headers.get("content-type"),
    bytes: new Uint8Array(await encoded.arrayBuffer()),
  };
}

/** A receiver's handle for one fixed request, checked to answer 200 before it is timed. */
async function handles(options, req) {
  const receiver = createReceiver({
    token: fixtures.token,
    onDelivery() {},
    onCall() {},
    // The same request over and over: without this, all but the first would be duplicates.
    dedupe: false,
    ...options,
  });
  const first = await receiver.handle(req);
  if (first.status !== 200) throw new Error(`expected 200, got ${first.status} ${first.body}`);
  return { async: true, run: async () => (await receiver.handle(req)).status === 200 };
}

/**
 * A receiver's handle for the DLR with a new id on every call, so that with a dedupe store each
 * one claims its key and marks it done (never a duplicate: the answer must be a plain 200).
 */
function handlesNewIds(options) {
  const receiver = createReceiver({ token: fixtures.token, onDelivery() {}, ...options });
  const [head, tail] = JSON.stringify({ ...fixtures.dlr, id: "ID" }).split('"ID"');
  let n = 0;
  return {
    async: true,
    run: async () => {
      const body = `${head}"m-${++n}:1"${tail}`;
      const reply = await receiver.handle(request("application/json", body));
      return reply.status === 200 && reply.body === '{"ok":true}';
    },
  };
}

// Each entry: a name and a setup giving { run, async }; run returns true when it worked.
const TASKS = [
  [
    "JSON.parse of the DLR (reference)",
    () => {
      const text = JSON.stringify(fixtures.dlr);
      return { run: () => JSON.parse(text) !== null };
    },
  ],
  [
    "zod parse of the DLR, hand-written schema (reference)",
    () => ({ run: () => DeliveryReport.safeParse(fixtures.dlr).success }),
  ],
  ["parseReport: DLR (the sample)", () => ({ run: () => parseReport(fixtures.dlr).ok })],
  [
    "parseReport: DLR with unix times",
    () => {
      const dlr = {
        ...fixtures.dlr,
        deliv_at: 1617965871,
        sent_at: 1617965868,
        submit_at: 1617965869,
      };
      return { run: () => parseReport(dlr).ok };
    },
  ],
  [
    "parseReport: DLR, every value a string (form)",
    () => {
      const dlr = strings(fixtures.dlr);
      return { run: () => parseReport(dlr).ok };
    },
  ],
  ["parseReport: call report (the sample)", () => ({ run: () => parseReport(fixtures.call).ok })],
  [
    "parseReport: call report, every value a string (form)",
    () => {
      const call = strings(fixtures.call);
      return { run: () => parseReport(call).ok };
    },
  ],
  [
    "parseReport: rejected DLR (status missing)",
    () => {
      const { status: _, ...dlr } = fixtures.dlr;
      return { run: () => !parseReport(dlr).ok };
    },
  ],
  [
    "bearer check, 1 token",
    () => {
      const check = checkBearer(fixtures.token);
      const value = authorization();
      return { run: () => check(value) === "ok" };
    },
  ],
  [
    "bearer check, 10 tokens",
    () => {
      const old = Array.from({ length: 9 }, (_, i) => `${fixtures.token}-old-${i}`);
      const check = checkBearer([...old, fixtures.token]);
      const value = authorization();
      return { run: () => check(value) === "ok" };
    },
  ],
  [
    "Receiver.handle: DLR, JSON string body",
    () => handles({}, request("application/json", JSON.stringify(fixtures.dlr))),
  ],
  ["Receiver.handle: DLR, a new id each, dedupe off", () => handlesNewIds({ dedupe: false })],
  ["Receiver.handle: DLR, a new id each, memory store (default)", () => handlesNewIds({})],
  [
    "Receiver.handle: DLR, JSON bytes body",
    () =>
      handles(
        {},
        request("application/json", new TextEncoder().encode(JSON.stringify(fixtures.dlr))),
      ),
  ],
  [
    "Receiver.handle: call report, JSON string body",
    () => handles({}, request("application/json", JSON.stringify(fixtures.call))),
  ],
  [
    "Receiver.handle: DLR, urlencoded body",
    () =>
      handles(
        {},
        request(
          "application/x-www-form-urlencoded",
          new URLSearchParams(strings(fixtures.dlr)).toString(),
        ),
      ),
  ],
  [
    "Receiver.handle: DLR, multipart body",
    async () => {
      const { type, bytes } = await multipart(strings(fixtures.dlr));
      return handles({}, request(type, bytes));
    },
  ],
  [
    "Receiver.handle: composed GET (query)",
    () => {
      const query = new URLSearchParams({
        call_id: String(fixtures.call.mid),
        to: String(fixtures.call.to),
        message_status: String(fixtures.call.status),
        duration: String(fixtures.call.duration),
      });
      return handles(
        { composed: fixtures.composed.get.template },
        request(undefined, undefined, {
          method: "GET",
          url: `${fixtures.composed.get.path}?${query}`,
          headers: { authorization: authorization(), host: "127.0.0.1" },
        }),
      );
    },
  ],
  [
    "Receiver.handle: composed multipart (form)",
    async () => {
      const dlr = fixtures.dlr;
      const { type, bytes } = await multipart({
        message_id: dlr.id,
        phone: dlr.mobile,
        message_status: dlr.status,
        delivered: dlr.deliv_time,
        sent: dlr.sent_time,
        credits: dlr.credits,
        ref: dlr.custom,
      });
      return handles(
        { composed: fixtures.composed.multipart.template },
        request(type, bytes, { url: fixtures.composed.multipart.path }),
      );
    },
  ],
];

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

const which = process.argv[2];
if (which === "--list") {
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
