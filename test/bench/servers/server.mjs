// One benchmark server per process: `node server.mjs <framework> <variant>`, where framework
// is raw-node, express, fastify or hono and variant is bare, hand-written, reportkit,
// reportkit-composed or reportkit-dedupe-{off,memory,redis}.
import { announce, countHandled } from "./common.mjs";

const [framework, variant = "bare"] = process.argv.slice(2);
const VARIANTS = {
  bare: "bare",
  "hand-written": "handWritten",
  reportkit: "reportkit",
  "reportkit-composed": "reportkitComposed",
  "reportkit-dedupe-off": "reportkit",
  "reportkit-dedupe-memory": "reportkit",
  "reportkit-dedupe-redis": "reportkit",
};

// reportkit's handlers do nothing but count: the benchmark measures what reportkit costs.
// The reportkit rows send the same DLR over and over, so they run without deduplication
// (otherwise every request after the first would be a duplicate); the dedupe rows send a new
// id on every request and measure each store's cost against "off".
const reportkitOptions = {
  onDelivery: countHandled,
  onCall: countHandled,
  dedupe: false,
};

/** The reportkit options of a variant: the default (memory) store, Redis, or none. */
async function optionsFor(variant) {
  if (variant === "reportkit-dedupe-memory") {
    const { dedupe: _off, ...withDefaultStore } = reportkitOptions;
    return withDefaultStore;
  }
  if (variant !== "reportkit-dedupe-redis") return reportkitOptions;
  const { redisDedupe } = await import("@reportkit/redis");
  const url = process.env.BENCH_REDIS_URL;
  if (url === undefined)
    throw new Error("BENCH_REDIS_URL is not set (run.ts starts redis-server).");
  return { ...reportkitOptions, dedupe: redisDedupe({ url }) };
}

/** The composed webhooks (path, template, handler) a reportkit-composed server mounts. */
const composed = Object.values(JSON.parse(process.env.BENCH_COMPOSED ?? "{}")).map(
  ({ path, template }) => ({
    path,
    template,
    // The same request over and over, as for the reportkit rows: without deduplication.
    handlers: {
      ...(template.type === "call" ? { onCall: countHandled } : { onDelivery: countHandled }),
      dedupe: false,
    },
  }),
);

const mod = await import(`./${framework}.mjs`);
const start = framework === "raw-node" ? mod.start : mod[VARIANTS[variant]];
if (typeof start !== "function") {
  throw new Error(`Unknown benchmark server "${framework} ${variant}".`);
}
announce(await start(variant === "reportkit-composed" ? composed : await optionsFor(variant)));
