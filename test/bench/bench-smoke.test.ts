import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { hasPostgresServer } from "../support/postgres-server.js";
import { hasRedisServer } from "../support/redis-server.js";
import { QUEUED_SCENARIO } from "./queue.js";

// A smoke run of the benchmark, `pnpm bench --smoke --base=<this tree>` (--quick on a
// representative subset: node:http's bare server and every Fastify server, which has every kind
// of server, so every table and row kind of the report; `pnpm bench` keeps all 37), in both
// modes, with this tree given as the base tree too, so that every reportkit server also runs
// from the base tree's own folder and the before/after tables are made: it must finish, every
// configuration must have answered only 2xx, and the report must have every row. Benchmarks are
// a tool, not tests: nothing here looks at a timing. Each server has its own bound to start
// (the bench says which did not, and what it printed); the whole run has one too, and on it
// this test shows where the run was.

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The whole run's bound, above the bench's own per-step bounds (60 s per server to start). */
const RUN_BOUND_MS = 240_000;

const FRAMEWORKS = ["Fastify 5"];
const HEADLINE = ["DLR (JSON)", "call report (JSON)"];
const EXPECTED_ROWS = [
  "node:http | bare | DLR (JSON)",
  ...FRAMEWORKS.flatMap((fw) => [
    `${fw} | bare | DLR (JSON)`,
    `${fw} | bare | call report (JSON)`,
    `${fw} | bare, second process | DLR (JSON)`,
    `${fw} | bare, second process | call report (JSON)`,
    ...(fw === "Fastify 5"
      ? [`${fw} | bare, in a plugin | DLR (JSON)`, `${fw} | bare, in a plugin | call report (JSON)`]
      : []),
    ...(fw === "Express 5"
      ? []
      : [
          `${fw} | reportkit's work, inline | DLR (JSON)`,
          `${fw} | reportkit's work, inline | call report (JSON)`,
        ]),
    `${fw} | hand-written | DLR (JSON)`,
    `${fw} | hand-written | call report (JSON)`,
    `${fw} | reportkit | DLR (JSON)`,
    `${fw} | reportkit | call report (JSON)`,
    `${fw} | reportkit | composed GET (query)`,
    `${fw} | reportkit | composed multipart (form)`,
    `${fw} | reportkit, dedupe off | DLR, a new id each (JSON)`,
    `${fw} | reportkit, memory store | DLR, a new id each (JSON)`,
    // Where redis-server is missing (never in CI), the run says so instead.
    ...(hasRedisServer ? [`${fw} | reportkit, Redis store | DLR, a new id each (JSON)`] : []),
    ...(hasPostgresServer ? [`${fw} | reportkit, Postgres inbox | DLR, a new id each (JSON)`] : []),
    `${fw} | reportkit, telemetry off | DLR, telemetry compared (JSON)`,
    `${fw} | reportkit, OpenTelemetry | DLR, telemetry compared (JSON)`,
  ]),
];
/** The headline requests' rows: all the sequential mode loads. */
const HEADLINE_ROWS = EXPECTED_ROWS.filter((label) =>
  HEADLINE.includes(label.split(" | ")[2] as string),
);
/** A reportkit server's row (not the inline floor's): "reportkit" or "reportkit, …". */
const isReportkit = (label: string) => {
  const server = label.split(" | ")[1] ?? "";
  return server === "reportkit" || server.startsWith("reportkit,");
};
/** Every reportkit row again, from the base tree. */
const baseRows = (rows: readonly string[]) =>
  rows.filter(isReportkit).map((label) => {
    const [fw, server, request] = label.split(" | ");
    return `${fw} | ${server} (base tree) | ${request}`;
  });
// Queue mode needs a redis-server (CI has one); without it the section says it was skipped.
const QUEUE_ROWS = hasRedisServer
  ? FRAMEWORKS.map((fw) => `${fw} | reportkit | ${QUEUED_SCENARIO}`)
  : [];
const WORKER_CONCURRENCIES = hasRedisServer ? ["1", "16"] : [];
const MICRO_ROWS = [
  "parseReport: DLR (the sample)",
  "parseReport: call report (the sample)",
  "bearer check, 1 token",
  "bearer check, 10 tokens",
  "Receiver.handle: DLR, JSON string body",
  "Receiver.handle: DLR, multipart body",
  "Receiver.handle: a duplicate DLR (answered from the dedupe store)",
  "Receiver.handle: rejected, invalid JSON (400)",
  "Receiver.handle: rejected, unrecognized report (400)",
  "Receiver.handle: rejected, DLR without its status (400)",
];

/** `tsc -b`, then the bench with --smoke, within RUN_BOUND_MS; a kill says where it was. */
async function runSmokeBench(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // Built JavaScript, as `pnpm bench` runs it (nothing to do when the suite built it already).
  const build = spawnSync(join(root, "node_modules/.bin/tsc"), ["-b"], {
    cwd: root,
    encoding: "utf8",
    timeout: 180_000,
  });
  if (build.status !== 0) throw new Error(`tsc -b failed:\n${build.stdout}${build.stderr}`);
  // node itself, not pnpm or the tsx CLI: a kill reaches the bench, whose servers then stop.
  const bench = spawn(
    process.execPath,
    ["--import", "tsx", "test/bench/run.ts", "--smoke", `--base=${root}`],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  bench.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
  bench.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      bench.kill("SIGTERM");
      reject(
        new Error(
          `pnpm bench --smoke did not finish within ${RUN_BOUND_MS / 1000} s; its last progress lines:\n${stderr.slice(-3000)}`,
        ),
      );
    }, RUN_BOUND_MS);
    bench.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The report's level-2 section whose heading starts with `heading`, up to the next one. */
function section(markdown: string, heading: string): string {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line.startsWith(`## ${heading}`));
  if (start === -1) return "";
  const end = lines.findIndex((line, i) => i > start && line.startsWith("## "));
  return lines.slice(start, end === -1 ? undefined : end).join("\n");
}

/** The markdown table rows of the report, as their cells. */
function tableRows(markdown: string): string[][] {
  return markdown
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| ---"))
    .map((line) =>
      line
        .slice(2, -2)
        .split(" | ")
        .map((cell) => cell.trim()),
    );
}

test(
  "pnpm bench --smoke measures every kind of configuration, all answered 2xx",
  async () => {
    const { code, stdout, stderr } = await runSmokeBench();
    expect(code, `the bench failed; the end of its output:\n${stderr.slice(-3000)}`).toBe(0);
    const notMeasured = stdout
      .split("\n")
      .filter(
        (line) =>
          line.startsWith("Not measured") &&
          !(line.includes("redis-server") && !hasRedisServer && !process.env.CI) &&
          !(line.includes("PostgreSQL") && !hasPostgresServer && !process.env.CI),
      );
    expect(notMeasured).toEqual([]);

    const rows = tableRows(stdout);
    const httpRows = (markdown: string) =>
      new Map(
        tableRows(markdown)
          .filter((cells) => cells.length === 10)
          .map((cells) => [cells.slice(0, 3).join(" | "), cells]),
      );
    const expectRows = (http: Map<string, string[]>, labels: readonly string[], where: string) => {
      for (const label of labels) {
        const cells = http.get(label);
        expect(
          cells,
          `row "${label}" is missing ${where}; the bench's last lines:\n${stderr.slice(-1500)}`,
        ).toBeDefined();
        expect(
          Number((cells as string[])[3]?.replaceAll(",", "")),
          `${label} req/s ${where}`,
        ).toBeGreaterThan(0);
        expect((cells as string[])[9], `${label} non-2xx ${where}`).toBe("0");
      }
    };
    // Every row in the report, the concurrent mode's (with the other sections) and the
    // sequential mode's, each from this tree and, for reportkit, the base tree.
    expectRows(
      httpRows(stdout),
      [...EXPECTED_ROWS, ...baseRows(EXPECTED_ROWS), ...QUEUE_ROWS],
      "in the report",
    );
    const modes = {
      concurrent: section(stdout, "HTTP, concurrent mode"),
      sequential: section(stdout, "HTTP, sequential mode"),
    };
    expectRows(
      httpRows(modes.sequential),
      [...HEADLINE_ROWS, ...baseRows(HEADLINE_ROWS)],
      "in the sequential mode",
    );
    // The concurrent mode's section has the same rows; its other requests have sections of
    // their own.
    expectRows(
      httpRows(modes.concurrent),
      [...HEADLINE_ROWS, ...baseRows(HEADLINE_ROWS)],
      "in the concurrent mode",
    );

    for (const [mode, markdown] of Object.entries(modes)) {
      const modeRows = tableRows(markdown);
      const ratios = modeRows.filter((cells) => cells.length === 9 && cells[2] !== "reportkit /");
      expect(
        ratios.map((cells) => `${cells[0]}, ${cells[1]} / ${cells[2]}`).sort(),
        `${mode} ratios`,
      ).toEqual(
        FRAMEWORKS.flatMap((fw) =>
          HEADLINE.flatMap((request) => [
            `${fw}, ${request} / bare`,
            `${fw}, ${request} / hand-written`,
            ...(fw === "Fastify 5" ? [`${fw}, ${request} / bare, in a plugin`] : []),
            ...(fw === "Express 5" ? [] : [`${fw}, ${request} / reportkit's work, inline`]),
          ]),
        ).sort(),
      );
      // The targets are judged in the sequential mode only.
      const judged = ratios.filter((cells) => cells[7] !== "–").map((cells) => cells[2]);
      expect(judged.sort(), `${mode} targets`).toEqual(
        mode === "sequential" ? ["bare", "bare", "hand-written", "hand-written"] : [],
      );

      // The control: each framework's bare server against its second process (five columns),
      // then Fastify's bare route in a plugin of its own.
      const controls = modeRows.filter(
        (cells) => cells.length === 5 && FRAMEWORKS.includes(cells[0] as string),
      );
      expect(
        controls.map((cells) => `${cells[0]}, ${cells[1]}`).sort(),
        `${mode} controls`,
      ).toEqual(
        [...FRAMEWORKS, "Fastify 5"].flatMap((fw) => HEADLINE.map((r) => `${fw}, ${r}`)).sort(),
      );
      for (const cells of controls)
        expect(cells[2], `${mode} ${cells[0]} control`).toMatch(/^\d\.\d\d \(/);
    }

    // Before and after (eight columns): every reportkit server of this tree against the base
    // tree's, per mode; the headline ones against the inline floor too.
    const beforeAfter = (mode: string) =>
      tableRows(
        section(stdout, "Before and after").split(`### ${mode} mode`)[1]?.split("\n### ")[0] ?? "",
      ).filter((cells) => cells.length === 8 && cells[0] !== "Framework");
    for (const [mode, labels] of [
      ["concurrent", EXPECTED_ROWS],
      ["sequential", HEADLINE_ROWS],
    ] as const) {
      const expected = labels.filter(isReportkit).map((label) => {
        const [fw, server, request] = label.split(" | ");
        return `${fw} | ${request} | ${server}`;
      });
      const found = beforeAfter(mode);
      expect(
        found.map((cells) => cells.slice(0, 3).join(" | ")).sort(),
        `before/after, ${mode}`,
      ).toEqual(expected.sort());
      for (const cells of found) {
        expect(cells[6], cells.join(" | ")).toMatch(/^\d+\.\d\d \(/);
        if (HEADLINE.includes(cells[1] as string) && cells[2] === "reportkit") {
          expect(cells[3], cells.join(" | ")).toBe("reportkit's work, inline");
          expect(cells[4], cells.join(" | ")).toMatch(/^\d+\.\d\d \(/);
          expect(cells[5], cells.join(" | ")).toMatch(/^\d+\.\d\d \(/);
        }
        expect(cells[7], cells.join(" | ")).toMatch(/^(yes|\*\*no\*\*)$/);
      }
    }

    // Core's handle per DLR in µs, from both trees (five columns, the tree first).
    const handle = rows.filter((cells) => cells[0] === "this tree" || cells[0] === "base tree");
    expect(handle.map((cells) => cells[0])).toEqual(["this tree", "base tree"]);
    for (const cells of handle) expect(Number(cells[1]), cells.join(" | ")).toBeGreaterThan(0);
    expect(handle[0]?.[3], "base / this tree").toMatch(/^\d+\.\d\d \(/);

    // What nextTick costs in each server process (four columns, a framework first): one row per
    // server, so at least one per HTTP row's framework and server.
    const ticks = rows.filter(
      (cells) => cells.length === 4 && [...FRAMEWORKS, "node:http"].includes(cells[0] as string),
    );
    const servers = new Set(
      [...EXPECTED_ROWS, ...baseRows(EXPECTED_ROWS)].map((label) =>
        label.split(" | ").slice(0, 2).join(" | "),
      ),
    );
    expect(new Set(ticks.map((cells) => cells.slice(0, 2).join(" | ")))).toEqual(servers);
    for (const cells of ticks)
      expect(cells[3], cells.join(" | ")).toMatch(/^(\d+|\*\*\d+ \(slow\)\*\*)$/);

    // The store table's rows (six columns; the ratio table has nine, the memory table seven).
    const stores = rows.filter(
      (cells) =>
        cells.length === 6 &&
        FRAMEWORKS.includes(cells[0] as string) &&
        cells[1] !== "store / dedupe off",
    );
    expect(stores.map((cells) => `${cells[0]} / ${cells[1]}`).sort()).toEqual(
      FRAMEWORKS.flatMap((fw) => [
        `${fw} / memory store`,
        ...(hasRedisServer ? [`${fw} / Redis store`] : []),
        ...(hasPostgresServer ? [`${fw} / Postgres inbox`] : []),
      ]).sort(),
    );

    // The telemetry table (three columns, no other table has three): one row per framework, a
    // CPU ratio with its IQR and the µs it adds.
    const telemetry = rows.filter(
      (cells) => cells.length === 3 && FRAMEWORKS.includes(cells[0] as string),
    );
    expect(telemetry.map((cells) => cells[0]).sort()).toEqual([...FRAMEWORKS].sort());
    for (const cells of telemetry) {
      expect(cells[1], cells.join(" | ")).toMatch(/^\d+\.\d\d \(\d+\.\d\d–\d+\.\d\d\)$/);
      expect(cells[2], cells.join(" | ")).toMatch(/^-?\d+\.\d$/);
    }

    const workers = new Map(
      rows.filter((cells) => cells[0] === "createWorker").map((cells) => [cells[1], cells]),
    );
    for (const concurrency of WORKER_CONCURRENCIES) {
      const cells = workers.get(concurrency);
      expect(cells, `worker row, concurrency ${concurrency}`).toBeDefined();
      expect(Number((cells as string[])[3]?.replaceAll(",", "")), "reports/s").toBeGreaterThan(0);
    }

    const micro = new Map(
      rows.filter((cells) => cells.length === 4).map((cells) => [cells[0], cells]),
    );
    for (const name of MICRO_ROWS) {
      const cells = micro.get(name);
      expect(cells, `micro-benchmark "${name}"`).toBeDefined();
      expect(Number((cells as string[])[1]?.replaceAll(",", "")), `${name} ops/s`).toBeGreaterThan(
        0,
      );
    }
  },
  RUN_BOUND_MS + 200_000,
);
