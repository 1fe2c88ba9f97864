// In-process micro-benchmarks of @reportkit/core (the built dist, as users get it), with
// tinybench. Started by run.ts on one pinned CPU; prints one JSON array of results.
// Each task runs its operation BATCH times per sample, so the timer's own cost (tens of
// nanoseconds) does not distort operations that take about a microsecond.
import { checkBearer, createReceiver, parseReport } from "@reportkit/core";
import { Bench } from "tinybench";

const { dlr, call, token, quick } = JSON.parse(process.env.BENCH_FIXTURES ?? "null") ?? {};
if (dlr === undefined) throw new Error("BENCH_FIXTURES is not set: run.ts starts this script.");

const BATCH = 100;
const bench = new Bench({
  time: quick ? 80 : 700,
  warmupTime: quick ? 30 : 200,
});

let sink = 0;
function sync(name, operation) {
  bench.add(name, () => {
    for (let i = 0; i < BATCH; i++) if (operation()) sink++;
  });
}
function async(name, operation) {
  bench.add(name, async () => {
    for (let i = 0; i < BATCH; i++) if (await operation()) sink++;
  });
}

const strings = (report) =>
  Object.fromEntries(Object.entries(report).map(([key, value]) => [key, String(value)]));
const dlrText = JSON.stringify(dlr);
const dlrWithUnix = { ...dlr, deliv_at: 1617965871, sent_at: 1617965868, submit_at: 1617965869 };
const dlrMissingMobile = { ...dlr, mobile: undefined };

// For scale: what any JSON receiver pays, and what a careful hand-written receiver pays.
sync("JSON.parse of the DLR (reference)", () => JSON.parse(dlrText));

sync("parseReport: DLR (the sample)", () => parseReport(dlr).ok);
sync("parseReport: DLR with unix times", () => parseReport(dlrWithUnix).ok);
sync("parseReport: DLR, every value a string (form)", () => {
  return parseReport(DLR_STRINGS).ok;
});
const DLR_STRINGS = strings(dlr);
sync("parseReport: call report (the sample)", () => parseReport(call).ok);
sync("parseReport: call report, every value a string (form)", () => {
  return parseReport(CALL_STRINGS).ok;
});
const CALL_STRINGS = strings(call);
sync("parseReport: rejected DLR (mobile missing)", () => !parseReport(dlrMissingMobile).ok);

const oneToken = checkBearer(token);
const tenTokens = checkBearer([...Array.from({ length: 9 }, (_, i) => `${token}-old-${i}`), token]);
const authorization = `Bearer ${token}`;
sync("bearer check, 1 token", () => oneToken(authorization) === "ok");
sync("bearer check, 10 tokens", () => tenTokens(authorization) === "ok");

const receiver = createReceiver({ token, onDelivery() {}, onCall() {} });
function request(contentType, body) {
  return {
    method: "POST",
    url: "/webhooks",
    headers: { authorization, "content-type": contentType, host: "127.0.0.1" },
    body,
  };
}
const form = new FormData();
for (const [key, value] of Object.entries(DLR_STRINGS)) form.append(key, value);
const multipart = new Response(form);
const multipartType = multipart.headers.get("content-type");
const multipartBytes = new Uint8Array(await multipart.arrayBuffer());

const cases = [
  ["Receiver.handle: DLR, JSON string body", request("application/json", dlrText)],
  [
    "Receiver.handle: DLR, JSON bytes body",
    request("application/json", new TextEncoder().encode(dlrText)),
  ],
  [
    "Receiver.handle: call report, JSON string body",
    request("application/json", JSON.stringify(call)),
  ],
  [
    "Receiver.handle: DLR, urlencoded body",
    request("application/x-www-form-urlencoded", new URLSearchParams(DLR_STRINGS).toString()),
  ],
  ["Receiver.handle: DLR, multipart body", request(multipartType, multipartBytes)],
];
for (const [name, req] of cases) {
  const first = await receiver.handle(req);
  if (first.status !== 200)
    throw new Error(`${name}: expected 200, got ${first.status} ${first.body}`);
  async(name, async () => (await receiver.handle(req)).status === 200);
}

await bench.run();

const results = bench.tasks.map((task) => {
  const { latency, state } = task.result;
  if (state !== "completed") return { name: task.name, error: String(task.result.error ?? state) };
  const nsPerOp = (latency.p50 * 1e6) / BATCH;
  return { name: task.name, opsPerSecond: 1e9 / nsPerOp, nsPerOp, rme: latency.rme };
});
if (sink === 0) throw new Error("no operation succeeded");
process.stdout.write(`${JSON.stringify(results)}\n`);
