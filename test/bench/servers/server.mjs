// One benchmark server per process: `node server.mjs <framework> <variant>`, where framework
// is raw-node, express, fastify or hono and variant is bare, hand-written or reportkit.
import { announce, countHandled } from "./common.mjs";

const [framework, variant = "bare"] = process.argv.slice(2);
const VARIANTS = {
  bare: "bare",
  "hand-written": "handWritten",
  reportkit: "reportkit",
  "reportkit-composed": "reportkitComposed",
};

// reportkit's handlers do nothing but count: the benchmark measures what reportkit costs.
const reportkitOptions = {
  onDelivery: countHandled,
  onCall: countHandled,
};

/** The composed webhooks (path, template, handler) a reportkit-composed server mounts. */
const composed = Object.values(JSON.parse(process.env.BENCH_COMPOSED ?? "{}")).map(
  ({ path, template }) => ({
    path,
    template,
    handlers: template.type === "call" ? { onCall: countHandled } : { onDelivery: countHandled },
  }),
);

const mod = await import(`./${framework}.mjs`);
const start = framework === "raw-node" ? mod.start : mod[VARIANTS[variant]];
if (typeof start !== "function") {
  throw new Error(`Unknown benchmark server "${framework} ${variant}".`);
}
announce(await start(variant === "reportkit-composed" ? composed : reportkitOptions));
