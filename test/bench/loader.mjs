// The load generator, in its own process (pinned by run.ts to the other CPU than the
// servers). Reads one job per stdin line, answers one result per stdout line, as JSON.
// autocannon's own latency histogram has 1 ms resolution, too coarse for sub-millisecond
// answers, so latencies are also recorded here from its per-response event, in microseconds.
import { createInterface } from "node:readline";
import autocannon from "autocannon";

// 1 µs buckets up to 1 s; slower answers count as 1 s.
const MAX_US = 1_000_000;

/**
 * Where a request's unique id goes, in its body or path (scenarios.ts puts it in the report's
 * id): every request then carries a report of its own, so a receiver's dedupe store claims and
 * completes a key for each, as with a real sender, instead of answering "duplicate".
 */
const UNIQUE = "__UNIQUE__";
// Ids unique across jobs and loader processes: the servers keep their stores between runs.
const PREFIX = `${process.pid.toString(36)}${Date.now().toString(36)}`;

/** autocannon's per-request hook writing a fresh id over the marker, or nothing to do. */
function uniqueIds(job, body) {
  const inBody = body?.includes(UNIQUE) === true;
  const inPath = job.url.includes(UNIQUE);
  if (!inBody && !inPath) return undefined;
  const [before, after] = inBody
    ? [body.subarray(0, body.indexOf(UNIQUE)), body.subarray(body.indexOf(UNIQUE) + UNIQUE.length)]
    : [];
  let count = 0;
  return (request) => {
    const id = `${PREFIX}-${job.id}-${++count}`;
    if (inBody) request.body = Buffer.concat([before, Buffer.from(id), after]);
    if (inPath) request.path = request.path.replace(UNIQUE, id);
    return request;
  };
}

function runJob(job) {
  const buckets = new Uint32Array(MAX_US + 1);
  let recorded = 0;
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const body = job.body === undefined ? undefined : Buffer.from(job.body, "base64");
  const setupRequest = uniqueIds(job, body);
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: job.url,
        method: job.method,
        headers: job.headers,
        body,
        ...(setupRequest === undefined ? {} : { requests: [{ setupRequest }] }),
        connections: job.connections,
        duration: job.duration,
        // Checks for the end of the run every 100 ms instead of every second.
        sampleInt: 100,
      },
      (error, result) => {
        if (error) {
          reject(error);
          return;
        }
        const cpu = process.cpuUsage(cpuBefore);
        resolve({
          id: job.id,
          // Near 100% means the load generator, not the server, set the pace.
          loaderCpu: (cpu.user + cpu.system) / 1000 / (performance.now() - wallBefore),
          requests: result.requests.total,
          duration: result.duration,
          rps: result.requests.total / result.duration,
          p50: percentile(buckets, recorded, 0.5),
          p99: percentile(buckets, recorded, 0.99),
          ok2xx: result["2xx"],
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          statusCodes: Object.keys(result.statusCodeStats ?? {}),
        });
      },
    );
    instance.on("response", (_client, _status, _bytes, responseTime) => {
      const us = Math.round(responseTime * 1000);
      buckets[Math.min(us, MAX_US)]++;
      recorded++;
    });
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

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() === "") continue;
  const job = JSON.parse(line);
  try {
    process.stdout.write(`${JSON.stringify(await runJob(job))}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ id: job.id, error: String(error) })}\n`);
  }
}
