// The load generator, in its own process (pinned by run.ts to the other CPU than the
// servers). Reads one job per stdin line, answers one result per stdout line, as JSON.
//
// Its own minimal HTTP/1.1 client rather than autocannon: with a fresh report id written into
// every request, autocannon took 80–90% of its CPU to keep a server of these sizes busy, so
// the load generator, not the server, set the pace, and a server's CPU per request then moved
// with how the two happened to interleave. This one writes prepared bytes (the id written over
// a slot of fixed width) and reads only the status line and Content-Length of each answer:
// keep-alive, one request in flight per connection, no pipelining.
import { connect } from "node:net";
import { createInterface } from "node:readline";

// 1 µs buckets up to 1 s; slower answers count as 1 s.
const MAX_US = 1_000_000;
/** A request with no answer after this long counts as a timeout and its connection is replaced. */
const TIMEOUT_MS = 10_000;

/**
 * Where a request's unique id goes, in its body or path (scenarios.ts puts it in the report's
 * id): every request then carries a report of its own, so a receiver's dedupe store claims and
 * completes a key for each, as with a real sender, instead of answering "duplicate".
 */
const UNIQUE = "__UNIQUE__";
// Ids unique across jobs and loader processes: the servers keep their stores between runs.
const PREFIX = `${process.pid.toString(36)}${Date.now().toString(36)}`;
/** Digits of the per-request count, written in place: the request's length never changes. */
const COUNT_DIGITS = 10;

/**
 * The request's bytes, and where in them the count goes (-1: no unique id), so that each
 * request is a copy with its count written over that slot.
 */
function prepare(job) {
  const url = new URL(job.url);
  const body = job.body === undefined ? Buffer.alloc(0) : Buffer.from(job.body, "base64");
  const id = `${PREFIX}-${job.id}-${"0".repeat(COUNT_DIGITS)}`;
  const path = `${url.pathname}${url.search}`.replace(UNIQUE, id);
  const at = body.indexOf(UNIQUE);
  const finalBody =
    at === -1
      ? body
      : Buffer.concat([body.subarray(0, at), Buffer.from(id), body.subarray(at + UNIQUE.length)]);
  const headers = Object.entries(job.headers ?? {})
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  const head =
    `${job.method} ${path} HTTP/1.1\r\nhost: ${url.host}\r\n${headers}` +
    (job.method === "GET" && finalBody.length === 0
      ? "\r\n"
      : `content-length: ${finalBody.length}\r\n\r\n`);
  const bytes = Buffer.concat([Buffer.from(head, "latin1"), finalBody]);
  const marker = Buffer.from(id);
  const slot = bytes.indexOf(marker);
  const unique = path.includes(id) || at !== -1;
  return {
    host: url.hostname,
    port: Number(url.port),
    bytes,
    countAt: unique ? slot + marker.length - COUNT_DIGITS : -1,
  };
}

const CRLF2 = Buffer.from("\r\n\r\n");

/**
 * Where the answer starting at `bodyAt` ends: by its Content-Length, or by the chunks of a
 * chunked body (node:http sends one after an explicit writeHead); -1 while it is incomplete.
 */
function answerEnd(buffered, headerText, bodyAt) {
  const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(headerText);
  if (length !== null) {
    const end = bodyAt + Number(length[1]);
    return buffered.length >= end ? end : -1;
  }
  if (!/\r\ntransfer-encoding:[ \t]*chunked/i.test(headerText)) return bodyAt;
  let at = bodyAt;
  for (;;) {
    const lineEnd = buffered.indexOf("\r\n", at);
    if (lineEnd === -1) return -1;
    const size = Number.parseInt(buffered.toString("latin1", at, lineEnd), 16);
    if (Number.isNaN(size)) throw new Error("a malformed chunked answer");
    // The chunk's data and its CRLF; the last chunk (size 0) is followed by a blank line.
    at = lineEnd + 2 + size + 2;
    if (buffered.length < at) return -1;
    if (size === 0) return at;
  }
}

function runJob(job) {
  const request = prepare(job);
  const buckets = new Uint32Array(MAX_US + 1);
  const statusCodes = new Map();
  let recorded = 0;
  let requests = 0;
  let ok2xx = 0;
  let non2xx = 0;
  let errors = 0;
  let timeouts = 0;
  let count = 0;
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const endAt = wallBefore + job.duration * 1000;
  let open = 0;
  let failure;

  return new Promise((resolve, reject) => {
    const finish = () => {
      if (open > 0) return;
      if (failure !== undefined) {
        reject(failure);
        return;
      }
      const cpu = process.cpuUsage(cpuBefore);
      const seconds = (performance.now() - wallBefore) / 1000;
      resolve({
        id: job.id,
        // Near 100% means the load generator, not the server, set the pace.
        loaderCpu: (cpu.user + cpu.system) / 1e6 / seconds,
        requests,
        duration: seconds,
        rps: requests / seconds,
        p50: percentile(buckets, recorded, 0.5),
        p99: percentile(buckets, recorded, 0.99),
        ok2xx,
        non2xx,
        errors,
        timeouts,
        statusCodes: [...statusCodes.keys()],
      });
    };

    const startConnection = () => {
      open++;
      const socket = connect({ host: request.host, port: request.port, noDelay: true });
      let buffered = Buffer.alloc(0);
      let sentAt = 0;
      let waiting = false;
      let retired = false;
      let timer;
      /** Ends this connection; with `replace`, another takes its place while the run lasts. */
      const retire = (replace) => {
        if (retired) return;
        retired = true;
        clearTimeout(timer);
        socket.destroy();
        open--;
        if (replace && performance.now() < endAt) startConnection();
        finish();
      };
      const send = () => {
        const bytes = Buffer.from(request.bytes);
        if (request.countAt !== -1) {
          let n = ++count;
          for (let i = request.countAt + COUNT_DIGITS - 1; i >= request.countAt; i--) {
            bytes[i] = 48 + (n % 10);
            n = Math.floor(n / 10);
          }
        }
        waiting = true;
        sentAt = performance.now();
        timer = setTimeout(() => {
          timeouts++;
          retire(true);
        }, TIMEOUT_MS);
        socket.write(bytes);
      };
      socket.on("connect", send);
      socket.on("data", (chunk) => {
        buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
        const headEnd = buffered.indexOf(CRLF2);
        if (headEnd === -1) return;
        const headerText = buffered.toString("latin1", 0, headEnd);
        let end;
        try {
          end = answerEnd(buffered, headerText, headEnd + 4);
        } catch (error) {
          failure ??= error;
          retire(false);
          return;
        }
        if (end === -1) return;
        buffered = buffered.subarray(end);
        clearTimeout(timer);
        waiting = false;
        const status = Number(headerText.slice(9, 12));
        statusCodes.set(status, true);
        requests++;
        if (status >= 200 && status < 300) ok2xx++;
        else non2xx++;
        const us = Math.round((performance.now() - sentAt) * 1000);
        buckets[Math.min(us, MAX_US)]++;
        recorded++;
        if (/\r\nconnection:[ \t]*close/i.test(headerText)) retire(true);
        else if (performance.now() < endAt) send();
        else retire(false);
      });
      socket.on("error", () => {
        errors++;
        retire(true);
      });
      socket.on("close", () => {
        // Closed by the server with a request still unanswered.
        if (waiting && !retired) errors++;
        retire(true);
      });
    };

    for (let i = 0; i < job.connections; i++) startConnection();
  });
}

/** The latency (ms) below which `fraction` of the responses fell. */
function percentile(buckets, count, fraction) {
  if (count === 0) return null;
  const rank = Math.ceil(count * fraction);
  let seen = 0;
  for (let us = 0; us < buckets.length; us++) {
    seen += buckets[us];
    if (seen >= rank) return us / 1000;
  }
  return MAX_US / 1000;
}

/**
 * A job with `targets` loads them all at once, for the same time, each with connections of its
 * own: servers compared side by side then share whatever else the machine is doing, so a ratio
 * of their costs does not move with it.
 */
async function runJobs(job) {
  if (job.targets === undefined) return runJob(job);
  const results = await Promise.all(
    job.targets.map((target) =>
      runJob({ ...target, connections: job.connections, duration: job.duration }),
    ),
  );
  return { id: job.id, results };
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() === "") continue;
  const job = JSON.parse(line);
  try {
    process.stdout.write(`${JSON.stringify(await runJobs(job))}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ id: job.id, error: String(error) })}\n`);
  }
}
