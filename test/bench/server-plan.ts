// Which servers a run starts: every framework's bare, hand-written and reportkit servers and
// their variants, as installed here and as --smoke, --only, --sequential and --base select, and
// their labels.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { hasPostgresServer } from "../support/postgres-server.js";
import { hasRedisServer } from "../support/redis-server.js";
import { baseDir, benchDir, MODES, only, smoke } from "./options.js";
import {
  CALL,
  COMPOSED_GET,
  composedMultipart,
  DLR,
  DLR_TELEMETRY,
  DLR_UNIQUE_IDS,
  type Scenario,
} from "./scenarios.js";
import type { Row, Tree } from "./statistics.js";

export type Variant =
  | "bare"
  | "bare-twin"
  | "bare-plugin"
  | "hand-written"
  | "inline-work"
  | "reportkit"
  | "reportkit-composed"
  | "reportkit-dedupe-off"
  | "reportkit-dedupe-memory"
  | "reportkit-dedupe-redis"
  | "reportkit-dedupe-postgres"
  | "reportkit-telemetry-off"
  | "reportkit-telemetry-otel";
export interface ServerSpec {
  readonly framework: string;
  readonly module: string;
  readonly variant: Variant;
  readonly scenarios: readonly Scenario[];
  /** Absent: the current tree. */
  readonly tree?: Tree;
}

const ALL_FRAMEWORKS = [
  { label: "Express 5", module: "express", adapter: "@reportkit/express" },
  { label: "Fastify 5", module: "fastify", adapter: "@reportkit/fastify" },
  { label: "Hono 4 (node-server)", module: "hono", adapter: "@reportkit/hono" },
] as const;

/** --smoke: Fastify alone, the one framework with every kind of server. */
export const FRAMEWORKS = smoke
  ? ALL_FRAMEWORKS.filter((fw) => fw.module === "fastify")
  : ALL_FRAMEWORKS;

/** Where a tree's servers resolve @reportkit/* from: its test package's node_modules. */
const modulesOf = (tree: Tree) =>
  tree === "base" && baseDir !== undefined
    ? join(baseDir, "test", "node_modules")
    : join(dirname(benchDir), "node_modules");

function adapterInstalled(adapter: string, tree: Tree = "current"): boolean {
  const dir = join(modulesOf(tree), adapter);
  if (!existsSync(join(dir, "package.json"))) return false;
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const entry = pkg.exports?.["."]?.default;
  return typeof entry === "string" && existsSync(join(dir, entry));
}

/** The requests the targets are about: the only ones the sequential mode loads. */
const HEADLINE: readonly Scenario[] = [DLR, CALL];

export async function plan(): Promise<{ servers: ServerSpec[]; notes: string[] }> {
  const multipart = await composedMultipart();
  const notes: string[] = [];
  const servers: ServerSpec[] = [
    { framework: "node:http", module: "raw-node", variant: "bare", scenarios: [DLR] },
  ];
  for (const fw of FRAMEWORKS) {
    servers.push({
      framework: fw.label,
      module: fw.module,
      variant: "bare",
      scenarios: [DLR, CALL],
    });
    // The same bare server in a second process, loaded with the others: its ratio to the
    // first is the method's own error, which no difference between servers means much below.
    servers.push({
      framework: fw.label,
      module: fw.module,
      variant: "bare-twin",
      scenarios: [DLR, CALL],
    });
    if (fw.module === "fastify") {
      // Fastify's bare route in a plugin of its own: what encapsulation alone costs, as
      // reportkit's route needs it for its body parsers.
      servers.push({
        framework: fw.label,
        module: fw.module,
        variant: "bare-plugin",
        scenarios: [DLR, CALL],
      });
    }
    servers.push({
      framework: fw.label,
      module: fw.module,
      variant: "hand-written",
      scenarios: [DLR, CALL],
    });
    if (fw.module !== "express") {
      // reportkit's work written inline: what a receiver doing that work could reach.
      servers.push({
        framework: fw.label,
        module: fw.module,
        variant: "inline-work",
        scenarios: [DLR, CALL],
      });
    }
    if (!adapterInstalled(fw.adapter)) {
      notes.push(`${fw.label}: ${fw.adapter} is not installed and built, so not measured.`);
      continue;
    }
    servers.push({
      framework: fw.label,
      module: fw.module,
      variant: "reportkit",
      scenarios: [DLR, CALL],
    });
    servers.push({
      framework: fw.label,
      module: fw.module,
      variant: "reportkit-composed",
      scenarios: [COMPOSED_GET, multipart],
    });
    const stores: Variant[] = ["reportkit-dedupe-off", "reportkit-dedupe-memory"];
    if (hasRedisServer) stores.push("reportkit-dedupe-redis");
    else
      notes.push(
        `${fw.label}: redis-server is not installed, so the Redis dedupe store is not measured.`,
      );
    if (hasPostgresServer) stores.push("reportkit-dedupe-postgres");
    else
      notes.push(
        `${fw.label}: PostgreSQL is not installed, so the Postgres inbox is not measured.`,
      );
    for (const variant of stores) {
      servers.push({
        framework: fw.label,
        module: fw.module,
        variant,
        scenarios: [DLR_UNIQUE_IDS],
      });
    }
    if (!adapterInstalled("@reportkit/otel")) {
      notes.push(
        `${fw.label}: @reportkit/otel is not installed and built, so telemetry is not measured.`,
      );
      continue;
    }
    for (const variant of ["reportkit-telemetry-off", "reportkit-telemetry-otel"] as const) {
      servers.push({ framework: fw.label, module: fw.module, variant, scenarios: [DLR_TELEMETRY] });
    }
  }
  const wanted = only?.toLowerCase();
  const selected = servers.filter(
    (s) =>
      (wanted === undefined ||
        `${s.framework} ${s.module} ${s.variant}`.toLowerCase().includes(wanted)) &&
      // The sequential mode measures the headline comparisons only (see MODES).
      (MODES.includes("concurrent") || s.scenarios.some((sc) => HEADLINE.includes(sc))),
  );
  return { servers: [...selected, ...baseTwins(selected, notes)], notes };
}

/**
 * With --base, each reportkit server again, run from the base tree: loaded in the same blocks as
 * its twin, for the before/after ratios. Skipped, with a note, where the base tree lacks the
 * adapter (or @reportkit/otel) built.
 */
function baseTwins(servers: readonly ServerSpec[], notes: string[]): ServerSpec[] {
  if (baseDir === undefined) return [];
  const twins: ServerSpec[] = [];
  for (const spec of servers) {
    if (!spec.variant.startsWith("reportkit")) continue;
    const fw = FRAMEWORKS.find((f) => f.module === spec.module);
    const needs = [
      fw?.adapter ?? "",
      ...(spec.variant === "reportkit-telemetry-otel" ? ["@reportkit/otel"] : []),
    ];
    const missing = needs.filter((adapter) => !adapterInstalled(adapter, "base"));
    if (missing.length > 0) {
      notes.push(
        `${spec.framework} ${spec.variant}, base tree: ${missing.join(", ")} is not installed and built in ${baseDir}.`,
      );
      continue;
    }
    twins.push({ ...spec, tree: "base" });
  }
  return twins;
}

const DEDUPE_LABELS = {
  "reportkit-dedupe-off": "reportkit, dedupe off",
  "reportkit-dedupe-memory": "reportkit, memory store",
  "reportkit-dedupe-redis": "reportkit, Redis store",
  "reportkit-dedupe-postgres": "reportkit, Postgres inbox",
  "reportkit-telemetry-off": "reportkit, telemetry off",
  "reportkit-telemetry-otel": "reportkit, OpenTelemetry",
} as const;

export function serverLabel(variant: Variant): Row["server"] {
  if (variant === "reportkit-composed") return "reportkit";
  if (variant === "bare-twin") return "bare, second process";
  if (variant === "bare-plugin") return "bare, in a plugin";
  if (variant === "inline-work") return "reportkit's work, inline";
  if (variant in DEDUPE_LABELS) return DEDUPE_LABELS[variant as keyof typeof DEDUPE_LABELS];
  return variant as Row["server"];
}
