// docs/statuses.md's two tables are the status tables reportkit runs on: every row's finality,
// outcome and meaning as @reportkit/wire has them, and every status of wire's tables in a row.
import { readFileSync } from "node:fs";
import {
  CALL_STATUSES,
  classifyCallStatus,
  classifyDeliveryStatus,
  DELIVERY_STATUSES,
  type StatusClass,
} from "@reportkit/wire";
import { describe, expect, it } from "vitest";

const page = readFileSync(new URL("../../docs/statuses.md", import.meta.url), "utf8");

/** The rows of the table under the paragraph that starts with `intro`. */
function rowsAfter(
  intro: string,
): { status: string; final: boolean; outcome: string; meaning: string }[] {
  const start = page.indexOf(intro);
  expect(start, `docs/statuses.md has a paragraph starting "${intro}"`).toBeGreaterThan(-1);
  const lines = page.slice(start).split("\n");
  const first = lines.findIndex((line) => line.startsWith("| status |"));
  const rows = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith("|")) break;
    const [status = "", final = "", outcome = "", meaning = ""] = line
      .split("|")
      .slice(1, -1)
      .map((cell) => cell.trim().replaceAll("`", ""));
    rows.push({ status, final: final === "yes", outcome, meaning });
  }
  return rows;
}

function check(
  intro: string,
  known: readonly string[],
  classify: (status: string) => StatusClass<string>,
  sample: Record<string, string>,
): void {
  const rows = rowsAfter(intro);
  const named = rows.map((row) => row.status).filter((status) => status !== "any other");
  expect([...named].sort()).toEqual([...known, ...Object.keys(sample)].sort());
  for (const row of rows) {
    const status = row.status === "any other" ? "NOT-A-STATUS" : (sample[row.status] ?? row.status);
    const found = classify(status);
    expect({ final: row.final, outcome: row.outcome }, row.status).toEqual({
      final: found.final,
      outcome: found.outcome,
    });
    if (found.known) expect(row.meaning, row.status).toBe(found.meaning);
  }
}

describe("docs/statuses.md's status tables", () => {
  it("are the delivery table, row by row", () => {
    check("**Delivery statuses**", DELIVERY_STATUSES, classifyDeliveryStatus, {
      "DLT-…": "DLT-HEADER",
    });
  });

  it("are the call table, row by row", () => {
    check("**Call statuses**", CALL_STATUSES, classifyCallStatus, {});
  });
});
