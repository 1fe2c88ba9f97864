// What every benchmark server shares: its configuration from the orchestrator, the receiver's
// credential option, the report of the port it listens on, the count of requests it answered
// 2xx, and the stop protocol.

/** The bearer token the load generator sends (the test fixtures' TOKEN, passed by run.ts). */
export const token = required("BENCH_TOKEN");
export const path = "/webhooks";
export const OK_BODY = '{"ok":true}';

/**
 * reportkit options with the bench's credential: the one place that says how a receiver gets
 * its secret, for every adapter's servers and the micro-benchmarks, so a change to the option
 * (regrouped as `auth: { secret }`, say) is made here alone. A base tree's servers keep their
 * own copy of this file, written for that tree's options.
 */
export function withCredential(options, secret = token) {
  return { secret, ...options };
}

// Counted on each success so the orchestrator can check every 2xx it saw reached a handler:
// a server that answered 200 without doing its work would make the numbers meaningless.
let handled = 0;
export function countHandled() {
  handled++;
}

/**
 * Tells the orchestrator the port, then answers its JSON lines on stdin: `{"cmd":"cpu"}` with
 * this process's own CPU time so far (user + system, µs, from process.cpuUsage), so the cost
 * per request is measured in the server itself; `{"cmd":"ticks"}` with what a
 * `process.nextTick` costs in this process (see nextTickCost); `{"cmd":"stop"}` or the end of
 * stdin stops it, printing the count.
 */
export function announce(port) {
  process.stdout.write(`${JSON.stringify({ port })}\n`);
  let input = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    input += chunk;
    for (let end = input.indexOf("\n"); end !== -1; end = input.indexOf("\n")) {
      const line = input.slice(0, end);
      input = input.slice(end + 1);
      if (line.includes("stop")) stop();
      else if (line.includes("ticks")) nextTickCost();
      else if (line.includes("cpu")) {
        const { user, system } = process.cpuUsage();
        process.stdout.write(`${JSON.stringify({ cpu: user + system, handled })}\n`);
      }
    }
  });
  process.stdin.on("end", stop);
}

/**
 * ns per `process.nextTick` call, the best of 20 batches of 10,000 (the queued ticks run
 * between batches). About 36 ns normally; about 10 times that in a process where the call's
 * tick-object literal has gone megamorphic, which then pays it on every request (see
 * RESULTS.md's notes): this tells which processes of a run were in that state.
 */
function nextTickCost() {
  const noop = () => {};
  let best = Number.POSITIVE_INFINITY;
  let batches = 20;
  const batch = () => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < 10_000; i++) process.nextTick(noop);
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 10_000);
    if (--batches > 0) setImmediate(batch);
    else process.stdout.write(`${JSON.stringify({ ticks: best })}\n`);
  };
  batch();
}

function stop() {
  process.stdout.write(`${JSON.stringify({ handled })}\n`, () => process.exit(0));
}

function required(name) {
  const value = process.env[name];
  if (value === undefined || value === "") {
    throw new Error(`${name} is not set: benchmark servers are started by test/bench/run.ts.`);
  }
  return value;
}
