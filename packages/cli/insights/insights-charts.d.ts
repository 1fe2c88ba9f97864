// The types of insights-charts.js, which the page runs as it is and `reportkit insights --format
// text` imports for its tables: one definition of every section, for both.
import type { Insights } from "@reportkit/postgres/insights";

/** One section: its title, its chart (a Chart.js configuration), its table. */
export interface Section {
  readonly id: string;
  readonly title: string;
  chart(data: Insights): unknown;
  table(data: Insights): { headers: string[]; rows: string[][] };
}

/** The sections, in the page's order. */
export declare const SECTIONS: readonly Section[];

/** 0.9312 → "93.1%"; null → "–". */
export declare function percent(rate: number | null): string;
