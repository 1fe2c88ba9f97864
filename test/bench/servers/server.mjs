// One benchmark server per process: `node server.mjs <framework> <variant>`, where framework
// is raw-node, express, fastify or hono and variant is bare, bare-twin (the same server, run as
// a second process), bare-plugin (Fastify: the bare route in an encapsulated plugin),
// hand-written, inline-work (Fastify, Hono: reportkit's work written inline), reportkit,
// reportkit-composed, reportkit-dedupe-{off,memory,redis,postgres} or reportkit-telemetry-{off,otel}.
import { announce, countHandled } from "./common.mjs";

const [framework, variant = "bare"] = process.argv.slice(2);
const VARIANTS = {
  bare: "bare",
  "bare-twin": "bare",
  "bare-plugin": "barePlugin",
  "hand-written": "handWritten",
  "inline-work": "inline",
  reportkit: "reportkit",
  "reportkit-composed": "reportkitComposed",
  "reportkit-dedupe-off": "reportkit",
  "reportkit-dedupe-memory": "reportkit",
  "reportkit-dedupe-redis": "reportkit",
  "reportkit-dedupe-postgres": "reportkit",
  "reportkit-telemetry-off": "reportkit",
  "reportkit-telemetry-otel": "reportkit",
};

// reportkit's handlers do nothing but count: the benchmark measures what reportkit costs.
// Every scenario sends a report id of its own on each request (loader.mjs), so the headline
// reportkit rows run with the defaults, the in-memory dedupe store on, claiming and completing
// a key per request as with real traffic; the dedupe rows compare the stores with "off".
const reportkitOptions = { onDelivery: countHandled, onCall: countHandled };

/**
 * The reportkit options of a variant: the default (memory) store, none, Redis or Postgres; or
 * the defaults with `telemetry: otelTelemetry()` on the OpenTelemetry SDK (otel-sdk.mjs).
 */
async function optionsFor(variant) {
  if (variant === "reportkit-dedupe-off") return { ...reportkitOptions, dedupe: false };
  if (variant === "reportkit-telemetry-otel") {
    const { otelTelemetry } = await import("@reportkit/otel");
    const { otelSdk } = await import("./otel-sdk.mjs");
    return { ...reportkitOptions, telemetry: otelTelemetry(otelSdk()) };
  }
  if (variant === "reportkit-dedupe-postgres") {
    const { postgresInbox } = await import("@reportkit/postgres");
    const connectionString = process.env.BENCH_DATABASE_URL;
    if (connectionString === undefined)
      throw new Error("BENCH_DATABASE_URL is not set (run.ts starts a PostgreSQL cluster).");
    return { ...reportkitOptions, dedupe: postgresInbox({ connectionString }) };
  }
  if (variant !== "reportkit-dedupe-redis") return reportkitOptions;
  const { redisDedupe } = await import("@reportkit/redis");
  const url = process.env.BENCH_REDIS_URL;
  if (url === undefined)
    throw new Error("BENCH_REDIS_URL is not set (run.ts starts redis-server).");
  return { ...reportkitOptions, dedupe: redisDedupe({ connection: url }) };
}

/** The composed webhooks (path, template, handler) a reportkit-composed server mounts. */
const composed = Object.values(JSON.parse(process.env.BENCH_COMPOSED ?? "{}")).map(
  ({ path, template }) => ({
    path,
    template,
    // A unique id per request here too: the defaults, the memory store on.
    handlers: template.type === "call" ? { onCall: countHandled } : { onDelivery: countHandled },
  }),
);

const mod = await import(`./${framework}.mjs`);
const start = framework === "raw-node" ? mod.start : mod[VARIANTS[variant]];
if (typeof start !== "function") {
  throw new Error(`Unknown benchmark server "${framework} ${variant}".`);
}
announce(await start(variant === "reportkit-composed" ? composed : await optionsFor(variant)));
