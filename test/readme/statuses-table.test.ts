// docs/statuses.md's status tables are the tables reportkit runs on: the page holds what
// statuses-doc.ts writes from @reportkit/wire, and each row read back says what wire's lookup
// says (finality, outcome, reason, transient, meaning, the provider's codes); every reason class
// is explained on the page.
import { readFileSync } from "node:fs";
import {
  CALL_STATUSES,
  classifyCallStatus,
  classifyDeliveryStatus,
  DELIVERY_REASONS,
  DELIVERY_STATUSES,
  type StatusClass,
} from "@reportkit/wire";
import { describe, expect, it } from "vitest";
import { BEGIN_MARKER, END_MARKER, STATUSES_PAGE, statusTables } from "./statuses-doc.js";

const page = readFileSync(STATUSES_PAGE, "utf8");

interface PageRow {
  status: string;
  final: boolean;
  outcome: string;
  reason: string | null;
  transient: boolean;
  meaning: string;
  codes: { code: string; description: string }[];
}

/** The rows of the table under the paragraph that starts with `intro`, by its header's columns. */
function rowsAfter(intro: string): PageRow[] {
  const start = page.indexOf(intro);
  expect(start, `docs/statuses.md has a paragraph starting "${intro}"`).toBeGreaterThan(-1);
  const lines = page.slice(start).split("\n");
  const header = lines.findIndex((line) => line.startsWith("| status |"));
  const columns = cells(lines[header] ?? "");
  const rows: PageRow[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith("|")) break;
    const cell: Partial<Record<string, string>> = Object.fromEntries(
      cells(line).map((text, i) => [columns[i] ?? "", text] as const),
    );
    const reason = cell.reason?.replaceAll("`", "");
    rows.push({
      status: String(cell.status).replaceAll("`", ""),
      final: cell.final === "yes",
      outcome: String(cell.outcome).replaceAll("`", ""),
      reason: reason === undefined || reason === "–" ? null : reason,
      transient: cell.transient === "yes",
      meaning: String(cell.meaning),
      codes: (cell["the provider's codes"] ?? "")
        .split("<br>")
        .filter((entry) => entry !== "")
        .map((entry) => {
          const [, code = "", description = ""] = /^`(\d{3})` (.*)$/.exec(entry) ?? [];
          return { code, description };
        }),
    });
  }
  return rows;
}

function cells(line: string): string[] {
  return line
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((cell) => cell.trim().replaceAll("\\|", "|"));
}

function check(
  intro: string,
  known: readonly string[],
  classify: (status: string) => StatusClass<string, string | null>,
  sample: Record<string, string>,
): void {
  const rows = rowsAfter(intro);
  const named = rows.map((row) => row.status).filter((status) => status !== "any other");
  expect([...named].sort()).toEqual([...known, ...Object.keys(sample)].sort());
  for (const row of rows) {
    const status = row.status === "any other" ? "NOT-A-STATUS" : (sample[row.status] ?? row.status);
    const found = classify(status);
    const { final, outcome, reason, transient } = found;
    expect(row, row.status).toMatchObject({ final, outcome, reason, transient });
    if (found.known) expect(row, row.status).toMatchObject({ meaning: found.meaning });
    if (row.codes.length > 0 || found.known) expect(row.codes, row.status).toEqual(found.codes);
  }
}

describe("docs/statuses.md's status tables", () => {
  it("are what statuses-doc.ts writes from wire's tables", () => {
    const begin = page.indexOf(BEGIN_MARKER);
    const end = page.indexOf(END_MARKER);
    expect(begin, "the page has the tables' markers").toBeGreaterThan(-1);
    const written = page.slice(begin, end + END_MARKER.length);
    expect(
      written === statusTables(),
      "docs/statuses.md's status tables differ from wire's: run `npx -y pnpm@10.34.9 docs:statuses`",
    ).toBe(true);
  });

  it("are the delivery table, row by row", () => {
    check("**Delivery statuses**", DELIVERY_STATUSES, classifyDeliveryStatus, {
      "DLT-…": "DLT-HEADER",
    });
  });

  it("are the call table, row by row", () => {
    check("**Call statuses**", CALL_STATUSES, classifyCallStatus, {});
  });

  it("explain every reason class, in the table's order", () => {
    const section = page.slice(page.indexOf("## Why it failed"), page.indexOf("How to use them"));
    const explained = [...section.matchAll(/^- \*\*`([a-z]+)`\*\*: /gm)].map((m) => m[1]);
    expect(explained).toEqual([...DELIVERY_REASONS]);
  });
});
