// One round of the HTTP bench in one mode: every framework's comparisons, in an order of the
// round's own, each comparison's servers loaded together (concurrent) or one at a time
// (sequential); and the rule that says when the rounds may stop.
import { beforeAfter, ratios } from "./comparisons.js";
import { blockOf, loadTogether, type RunningServer, shuffled } from "./http-load.js";
import type { Mode } from "./options.js";
import type { LineProcess } from "./processes.js";
import { CALL, DLR, type Scenario } from "./scenarios.js";
import { halfIqr, type Row, type RunResult, type Spread } from "./statistics.js";

/** Where each row's server and request are. */
export interface RowTargets {
  readonly server: ReadonlyMap<Row, RunningServer>;
  readonly scenario: ReadonlyMap<Row, Scenario>;
}

/**
 * Runs `rows` once each, pushing each run to its row. A framework's rows run back to back, so
 * its ratios compare runs seconds apart; frameworks, comparisons and (sequential) servers in an
 * order of the round's own, so none is always first after a pause.
 */
export async function runRound(
  loader: LineProcess,
  mode: Mode,
  rows: readonly Row[],
  targets: RowTargets,
  round: number,
  duration: number,
): Promise<void> {
  const groups = [...new Set(rows.map((row) => row.framework))].map((framework) =>
    rows.filter((row) => row.framework === framework),
  );
  for (const group of shuffled(groups, round)) {
    // The rows a ratio compares (one request's bare, hand-written and reportkit servers; the
    // dedupe variants) make one block.
    const blocks = [...new Set(group.map(blockOf))].map((block) =>
      group.filter((row) => blockOf(row) === block),
    );
    for (const block of shuffled(blocks, round * 31 + group.length)) {
      // Concurrent: loaded together, for the same second, all on the servers' CPU, so each one's
      // cost is measured under the same conditions as the others'. Sequential: each alone on
      // that CPU for the same time, one after the other, as one receiver per core runs.
      const loads =
        mode === "concurrent"
          ? [block]
          : shuffled(block, round * 17 + block.length).map((row) => [row]);
      for (const load of loads) {
        const results = await loadTogether(
          loader,
          load.map((row) => ({
            server: targets.server.get(row) as RunningServer,
            scenario: targets.scenario.get(row) as Scenario,
          })),
          duration,
        );
        for (const [i, row] of load.entries()) {
          const result = results[i] as RunResult;
          row.runs.push(result);
          console.error(
            `round ${round} (${mode}): ${row.framework} ${row.server}${row.tree === "base" ? " (base tree)" : ""}, ${row.scenario}: ${Math.round(result.rps)} req/s, ${result.serverCpuPerRequest?.toFixed(1)} µs CPU/req${result.non2xx > 0 ? `, ${result.non2xx} non-2xx` : ""}`,
          );
        }
      }
    }
  }
}

/**
 * The widest half-IQR among the ratios that decide when rounds stop, over every mode: the
 * targets' ratios (the ones that only explain them do not count), and with a base tree the
 * before/after of the headline requests on Fastify and Hono, which the rewrite is judged by.
 */
export function widestDecidingIqr(rowsByMode: ReadonlyMap<Mode, readonly Row[]>): number {
  const spreads: Spread[] = [];
  for (const rows of rowsByMode.values()) {
    const headline = rows.filter((row) => row.scenario === DLR.name || row.scenario === CALL.name);
    for (const r of ratios(headline, [DLR.name, CALL.name])) {
      if (r.target !== undefined) spreads.push(r.byCpu);
    }
    for (const change of beforeAfter(headline)) {
      if (change.floor === "reportkit's work, inline") spreads.push(change.change);
    }
  }
  return Math.max(...spreads.map(halfIqr));
}
