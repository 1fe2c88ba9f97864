// In-process micro-benchmarks of @reportkit/core (the built dist, as users get it), with
// tinybench. Started by run.ts on one pinned CPU, once per task: `node micro.mjs --list`
// prints the task names, `node micro.mjs <index>` runs one and prints its result as JSON
// (`--all` runs them all in one process and prints the array).
// A fresh process per task keeps one task's object shapes from turning the next one's
// property accesses megamorphic, which a real receiver, seeing one or two shapes, never has.
// Each sample runs the operation BATCH times, so the timer's own cost (tens of nanoseconds)
// does not distort operations that take about a microsecond.
import { createReceiver, parseReport } from "@reportkit/core";
import { Bench } from "tinybench";
// The bearer check is internal to core (no entry exports it): measured from the built file.
import { checkBearer } from "../../packages/core/dist/request/check-bearer.js";
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

const OK_BODY = '{"ok":true}';

/**
 * A receiver's handle with the default in-memory dedupe store on, for requests that `next()`
 * gives: each with a report id of its own, so every request claims and completes a key as a
 * real sender's reports do (a fixed request would be answered "duplicate" from the second on).
 * Checked to answer 200 and not a duplicate before it is timed.
 */
async function handlesUnique(options, next, expected = 200, expectedBody = OK_BODY) {
  const receiver = createReceiver({
    token: fixtures.token,
    onDelivery() {},
    onCall() {},
    logger: false,
    ...options,
  });
  const first = await receiver.handle(next());
  const second = await receiver.handle(next());
  // The first of a repeated request is the original; the second is what gets timed.
  for (const reply of [first, second]) {
    if (reply.status !== expected) {
      throw new Error(`expected ${expected}, got ${reply.status} ${reply.body}`);
    }
  }
  if (expected === 200 && second.body !== expectedBody) {
    throw new Error(`expected ${expectedBody}, got ${second.body}`);
  }
  return {
    async: true,
    run: async () => (await receiver.handle(next())).status === expected,
  };
}

/** Where a unique id goes in a prepared body: 12 digits, rewritten per request by uniqueBytes. */
const UNIQUE_SLOT = "000000000000";

/** Copies of `bytes` with a count written over the UNIQUE_SLOT digits, a new one per call. */
function uniqueBytes(bytes) {
  const slot = Buffer.from(bytes).indexOf(UNIQUE_SLOT);
  if (slot === -1) throw new Error("no unique slot in the body");
  let count = 0;
  return () => {
    const copy = bytes.slice();
    let n = ++count;
    for (let i = slot + UNIQUE_SLOT.length - 1; i >= slot; i--) {
      copy[i] = 48 + (n % 10);
      n = Math.floor(n / 10);
    }
    return copy;
  };
}

/** One fixed request (refusals and bodies without an identity, which nothing deduplicates). */
function handles(options, req, expected = 200, expectedBody = undefined) {
  return handlesUnique(options, () => req, expected, expectedBody);
}

/**
 * A JSON body with a fresh value of `field` on each call, built as a sender's text is: the
 * cost of building it (about 40 ns) is in the figure, and in the reference row below.
 */
function uniqueJson(report, field) {
  const marker = "\u0000unique\u0000";
  const [before, after] = JSON.stringify({ ...report, [field]: marker }).split(
    JSON.stringify(marker),
  );
  let count = 0;
  return () => `${before}"${report[field]}-${++count}"${after}`;
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
    "building a unique DLR body (reference, included in the rows below)",
    () => {
      const next = uniqueJson(fixtures.dlr, "id");
      return { run: () => next().length > 0 };
    },
  ],
  [
    "Receiver.handle: DLR, JSON string body",
    () => {
      const next = uniqueJson(fixtures.dlr, "id");
      return handlesUnique({}, () => request("application/json", next()));
    },
  ],
  [
    "Receiver.respond: DLR, JSON string body (the reply without a promise)",
    async () => {
      const next = uniqueJson(fixtures.dlr, "id");
      const receiver = createReceiver({ token: fixtures.token, onDelivery() {}, logger: false });
      const first = receiver.respond(request("application/json", next()));
      if (first instanceof Promise || first.body !== OK_BODY) {
        throw new Error("respond did not answer synchronously with 200 ok");
      }
      return { run: () => receiver.respond(request("application/json", next())).status === 200 };
    },
  ],
  [
    "Receiver.handle: DLR, JSON string body, dedupe off",
    () => {
      const next = uniqueJson(fixtures.dlr, "id");
      return handlesUnique({ dedupe: false }, () => request("application/json", next()));
    },
  ],
  [
    "Receiver.handle: DLR, JSON bytes body",
    () => {
      const next = uniqueJson(fixtures.dlr, "id");
      const encoder = new TextEncoder();
      return handlesUnique({}, () => request("application/json", encoder.encode(next())));
    },
  ],
  [
    "Receiver.handle: call report, JSON string body",
    () => {
      const next = uniqueJson(fixtures.call, "mid");
      return handlesUnique({}, () => request("application/json", next()));
    },
  ],
  [
    "Receiver.handle: a duplicate DLR (answered from the dedupe store)",
    () =>
      handles(
        {},
        request("application/json", JSON.stringify(fixtures.dlr)),
        200,
        '{"ok":true,"duplicate":true}',
      ),
  ],
  [
    "Receiver.handle: rejected, invalid JSON (400)",
    () => handles({}, request("application/json", '{"id": "1", "status": '), 400),
  ],
  [
    "Receiver.handle: rejected, unrecognized report (400)",
    () => handles({}, request("application/json", '{"hello": "world"}'), 400),
  ],
  [
    "Receiver.handle: rejected, DLR without its status (400)",
    () => {
      const { status: _, ...dlr } = fixtures.dlr;
      return handles({}, request("application/json", JSON.stringify(dlr)), 400);
    },
  ],
  [
    "Receiver.handle: rejected, wrong token (401)",
    () => {
      const req = request("application/json", JSON.stringify(fixtures.dlr));
      return handles(
        {},
        { ...req, headers: { ...req.headers, authorization: "Bearer nope" } },
        401,
      );
    },
  ],
  [
    "Receiver.handle: DLR, urlencoded body",
    () => {
      let count = 0;
      const form = new URLSearchParams(strings(fixtures.dlr));
      return handlesUnique({}, () => {
        form.set("id", `${fixtures.dlr.id}-${++count}`);
        return request("application/x-www-form-urlencoded", form.toString());
      });
    },
  ],
  [
    "Receiver.handle: DLR, multipart body",
    async () => {
      const { type, bytes } = await multipart({ ...strings(fixtures.dlr), id: UNIQUE_SLOT });
      const next = uniqueBytes(bytes);
      return handlesUnique({}, () => request(type, next()));
    },
  ],
  [
    "Receiver.handle: composed GET (query)",
    () => {
      const query = new URLSearchParams({
        call_id: UNIQUE_SLOT,
        to: String(fixtures.call.to),
        message_status: String(fixtures.call.status),
        duration: String(fixtures.call.duration),
      }).toString();
      const [before, after] = query.split(UNIQUE_SLOT);
      let count = 0;
      return handlesUnique({ composed: fixtures.composed.get.template }, () =>
        request(undefined, undefined, {
          method: "GET",
          url: `${fixtures.composed.get.path}?${before}${fixtures.call.mid}-${++count}${after}`,
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
        message_id: UNIQUE_SLOT,
        phone: dlr.mobile,
        message_status: dlr.status,
        delivered: dlr.deliv_time,
        sent: dlr.sent_time,
        credits: dlr.credits,
        ref: dlr.custom,
      });
      const next = uniqueBytes(bytes);
      return handlesUnique({ composed: fixtures.composed.multipart.template }, () =>
        request(type, next(), { url: fixtures.composed.multipart.path }),
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

/**
 * `node --expose-gc micro.mjs --memory`: the RSS of one receiver (defaults: the in-memory
 * dedupe store holds up to 100,000 keys) after `small` and after `large` DLRs with ids of their
 * own through `handle`, each after a full GC, and the heap those keys take.
 */
async function memory(small, large, label, options) {
  if (typeof globalThis.gc !== "function") throw new Error("run with --expose-gc");
  const next = uniqueJson(fixtures.dlr, "id");
  const receiver = createReceiver({
    token: fixtures.token,
    onDelivery() {},
    logger: false,
    ...options,
  });
  let sent = 0;
  const upTo = async (n) => {
    for (; sent < n; sent++) {
      const reply = await receiver.handle(request("application/json", next()));
      if (reply.body !== OK_BODY) throw new Error(`expected 200 ok, got ${reply.body}`);
    }
    globalThis.gc();
    globalThis.gc();
    return process.memoryUsage();
  };
  const before = await upTo(small);
  const after = await upTo(large);
  const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
  const maxKeys = options.dedupe === false ? 0 : 100_000;
  return {
    label,
    small,
    large,
    rssSmall: mb(before.rss),
    rssLarge: mb(after.rss),
    heapSmall: mb(before.heapUsed),
    heapLarge: mb(after.heapUsed),
    keysSmall: Math.min(small, maxKeys),
    keysLarge: Math.min(large, maxKeys),
  };
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
