// What `reportkit journal list` and `reportkit replay` share: the journal's database (--db),
// opened with the store's own package, and the filter their flags make (--status, --kind,
// --since).
import type { JournalFilter, JournalStatus, ReadableJournal } from "@reportkit/core/adapter";
import { REPORT_KINDS, type ReportKind } from "@reportkit/wire";
import type { Command } from "commander";
import { parseDuration } from "./duration.js";
import { CliError, type CliIo } from "./io.js";
import { loadOptional, POSTGRES, REDIS } from "./optional-package.js";
import { redisConnectionOf } from "./redis-url.js";

// Type-checked against the journal's own statuses (a new one would not compile here); a value
// of the CLI's, since @reportkit/core is no runtime dependency of it.
export const STATUSES = Object.keys({
  failed: true,
  refused: true,
  resolved: true,
} satisfies Record<JournalStatus, true>) as JournalStatus[];

/** The flags `withDb` adds, and --status. */
export interface JournalFlags {
  db?: string;
  status?: string;
  kind?: string;
  since?: string;
}

/** Adds --db, --kind and --since. */
export function withDb(command: Command): Command {
  return command
    .option(
      "--db <url>",
      "the journal's database: postgres://… or redis://… (a Redis Cluster's nodes comma-separated) (env: REPORTKIT_DB_URL)",
    )
    .option(
      "--kind <kind>",
      `only reports of this kind: ${REPORT_KINDS.join(", ")} (comma-separated for several)`,
    )
    .option("--since <duration>", "only entries last seen this long ago or later, e.g. 2h, 30m");
}

/**
 * The journal filter of --status (each one of `allowed`, default every status), --kind (default
 * any) and --since.
 * @throws CliError naming the flag and what it takes
 */
export function filterOf(
  flags: JournalFlags,
  allowed: readonly JournalStatus[] = STATUSES,
): { status?: JournalStatus[]; kind?: ReportKind[]; since?: Date } {
  const statuses = listOf(flags.status, "--status", allowed);
  const kinds = listOf(flags.kind, "--kind", REPORT_KINDS);
  const since =
    flags.since === undefined
      ? undefined
      : new Date(Date.now() - parseDuration(flags.since, "--since"));
  return {
    ...(statuses && { status: statuses }),
    ...(kinds && { kind: kinds }),
    ...(since && { since }),
  } satisfies JournalFilter;
}

/** A comma-separated flag's values, each one of `allowed`; undefined when the flag is not given. */
function listOf<T extends string>(
  text: string | undefined,
  flag: string,
  allowed: readonly T[],
): T[] | undefined {
  if (text === undefined) return undefined;
  const values = text.split(",").map((value) => value.trim() as T);
  for (const value of values) {
    if (!allowed.includes(value)) {
      throw new CliError(
        `${flag} must be ${allowed.join(", ")} (comma-separated for several); got "${value}".`,
      );
    }
  }
  return values;
}

/**
 * Opens the journal the URL names (several redis:// URLs, comma-separated, are a Redis
 * Cluster's nodes); @reportkit/postgres and @reportkit/redis (optional peers of the CLI) are
 * loaded only here, when needed. A journal that cannot be reached rejects with a StoreError
 * naming its server, which `main` prints as it is.
 */
export async function withJournal(
  flags: JournalFlags,
  io: CliIo,
  run: (journal: ReadableJournal) => Promise<void>,
): Promise<void> {
  const url = flags.db ?? io.env.REPORTKIT_DB_URL;
  if (url === undefined || url === "") {
    throw new CliError(
      "no journal database: pass --db (or set REPORTKIT_DB_URL), e.g. postgres://user:pass@127.0.0.1:5432/app or redis://127.0.0.1:6379.",
    );
  }
  let journal: ReadableJournal;
  if (/^postgres(ql)?:\/\//.test(url)) {
    const { postgresJournal } = await loadOptional(POSTGRES, () => import("@reportkit/postgres"));
    journal = postgresJournal({ connectionString: url });
  } else if (/^rediss?:\/\//.test(url)) {
    const { redisJournal } = await loadOptional(REDIS, () => import("@reportkit/redis"));
    journal = redisJournal({ connection: redisConnectionOf(url) });
  } else {
    throw new CliError("--db must start with postgres://, postgresql://, redis:// or rediss://.");
  }
  try {
    await run(journal);
  } finally {
    await journal.close();
  }
}

/** "1 entry", "2 entries". */
export function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
