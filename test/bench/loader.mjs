// The load generator, in its own process (pinned by run.ts to the other CPU than the
// servers). Reads one job per stdin line, answers one result per stdout line, as JSON.
// autocannon's own latency histogram has 1 ms resolution, too coarse for sub-millisecond
// answers, so latencies are also recorded here from its per-response event, in microseconds.
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import autocannon from "autocannon";

// 1 µs buckets up to 1 s; slower answers count as 1 s.
const MAX_US = 1_000_000;

/**
 * With `uniqueIds`, each "[<id>]" in the body becomes a new id on every request. (autocannon's
 * own idReplacement miscounts Content-Length for its ids, so the server waits for bytes that
 * never come.) The ids are this run's random prefix and a counter: unique across runs too.
 */
function uniqueIdRequests(job) {
  if (job.uniqueIds !== true || job.body === undefined) return undefined;
  const template = Buffer.from(job.body, "base64").toString("utf8");
  const run = randomUUID();
  let n = 0;
  return [
    {
      setupRequest: (request) => ({
        ...request,
        body: template.replaceAll("[<id>]", `${run}-${++n}`),
      }),
    },
  ];
}

function runJob(job) {
  const buckets = new Uint32Array(MAX_US + 1);
  let recorded = 0;
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: job.url,
        method: job.method,
        headers: job.headers,
        body: job.body === undefined ? undefined : Buffer.from(job.body, "base64"),
        connections: job.connections,
        requests: uniqueIdRequests(job),
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
