// What the README's "Receive your first report" promises, read once for every test that runs it
// as written (test/readme/quick-start.test.ts, test/packaging/pack-local.test.ts): the run
// line's environment, the two curl commands (the webhook's verification, then a report) and
// the line the first server prints.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const README = join(import.meta.dirname, "../../README.md");

/** The lines of the README section under `## <title>`, with their README line numbers. */
export function readmeSection(title: string): { from: number; to: number; text: string } {
  const lines = readFileSync(README, "utf8").split("\n");
  const from = lines.findIndex((l) => l.trim() === `## ${title}`);
  if (from === -1) throw new Error(`README.md has no "## ${title}" section`);
  let to = lines.findIndex((l, i) => i > from && /^## /.test(l));
  if (to === -1) to = lines.length;
  return { from: from + 1, to, text: lines.slice(from, to).join("\n") };
}

const first = readmeSection("Receive your first report");

/** The README's run line (`REPORTKIT_…=… npx tsx server.ts`): the environment it sets. */
export const runEnv: Record<string, string> = Object.fromEntries(
  (/`((?:[A-Z_]+=\S+ )+)npx tsx server\.ts`/.exec(first.text)?.[1] ?? "")
    .trim()
    .split(" ")
    .filter((pair) => pair !== "")
    .map((pair) => pair.split("=") as [string, string]),
);

/** The section's curl commands, in order: the verification, then the report. */
export const curls: string[] = [...first.text.matchAll(/```sh\n(curl [\s\S]*?)```/g)].map(
  (m) => m[1] as string,
);

/** What the README says the first server prints for the report. */
export const printed: string = /the server prints\s+`([^`]+)`/.exec(first.text)?.[1] ?? "";

export const firstReport = first;
