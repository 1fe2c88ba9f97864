// docs/statuses.md's status tables, written from @reportkit/wire's: the page holds them between
// two markers, statuses-table.test.ts fails when they differ from what this writes, and
// `pnpm docs:statuses` (this file run as a command) writes them into the page.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import {
  CALL_STATUSES,
  classifyCallStatus,
  classifyDeliveryStatus,
  DELIVERY_STATUSES,
  DLT_REJECTION,
  type StatusClass,
  type StatusCode,
} from "@reportkit/wire";

export const STATUSES_PAGE = new URL("../../docs/statuses.md", import.meta.url);
export const BEGIN_MARKER =
  "<!-- The status tables: written from @reportkit/wire's by `npx -y pnpm@10.34.9 docs:statuses`. Edit the tables there, not here. -->";
export const END_MARKER = "<!-- End of the status tables. -->";

/** What the page holds between its markers: the delivery table, then the call table. */
export function statusTables(): string {
  const delivery = [
    "**Delivery statuses** (every status of the provider's DLR table, `v2/sms/smpp.md`, with its",
    "codes and the provider's own description of each; the DLT names of `help/smart-delivery.md`;",
    "and those of the field notes and SMPP practice), by reason:",
    "",
    "| status | final | outcome | reason | transient | meaning | the provider's codes |",
    "|---|---|---|---|---|---|---|",
    ...DELIVERY_STATUSES.map((status) =>
      deliveryRow(`\`${status}\``, classifyDeliveryStatus(status)),
    ),
    deliveryRow(
      `\`${DLT_REJECTION.prefix}…\``,
      classifyDeliveryStatus(`${DLT_REJECTION.prefix}NOT-LISTED`),
    ),
    deliveryRow("any other", classifyDeliveryStatus("NOT-A-STATUS"), UNKNOWN_MEANING),
  ];
  const call = [
    "**Call statuses** (every status of `v2/voice/index.md`). A call report is pushed once the call",
    "has ended, so every one of them is final; a call has no reason:",
    "",
    "| status | final | outcome | transient | meaning |",
    "|---|---|---|---|---|",
    ...CALL_STATUSES.map((status) => callRow(`\`${status}\``, classifyCallStatus(status))),
    callRow("any other", classifyCallStatus("NOT-A-STATUS"), UNKNOWN_MEANING),
  ];
  return [BEGIN_MARKER, "", ...delivery, "", ...call, "", END_MARKER].join("\n");
}

/** The page with its status tables written anew; throws when it lacks the markers. */
export function withStatusTables(page: string): string {
  const begin = page.indexOf(BEGIN_MARKER);
  const end = page.indexOf(END_MARKER);
  if (begin === -1 || end < begin) {
    throw new Error(
      `docs/statuses.md has no status tables to write: put the two lines ${JSON.stringify(BEGIN_MARKER)} and ${JSON.stringify(END_MARKER)} where they go.`,
    );
  }
  return page.slice(0, begin) + statusTables() + page.slice(end + END_MARKER.length);
}

// What a report with a status the table does not know gets, besides the row.
const UNKNOWN_MEANING = "Not in the table: taken as sent, with a warning on the report.";

function deliveryRow(status: string, found: StatusClass<string>, meaning = found.meaning): string {
  const { final, outcome, reason, transient } = found;
  const cells = [status, yesNo(final), `\`${outcome}\``, reason === null ? "–" : `\`${reason}\``];
  return row([...cells, yesNo(transient), meaning, codes(found.codes)]);
}

function callRow(status: string, found: StatusClass<string>, meaning = found.meaning): string {
  return row([status, yesNo(found.final), `\`${found.outcome}\``, yesNo(found.transient), meaning]);
}

/** Each code and its description, as the provider writes them, one a line in the cell. */
function codes(list: readonly StatusCode[]): string {
  return list.map(({ code, description }) => `\`${code}\` ${description}`).join("<br>");
}

function row(cells: string[]): string {
  return `| ${cells.map((cell) => cell.replaceAll("|", "\\|")).join(" | ")} |`;
}

function yesNo(value: boolean): string {
  return value ? "yes" : "no";
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const page = readFileSync(STATUSES_PAGE, "utf8");
  const written = withStatusTables(page);
  writeFileSync(STATUSES_PAGE, written);
  console.log(
    written === page ? "docs/statuses.md: up to date." : "docs/statuses.md: status tables written.",
  );
}
