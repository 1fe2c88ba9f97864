import { CliError } from "./io.js";

/** A package some commands need and the CLI does not install (an optional peer dependency). */
export interface OptionalPackage {
  /** e.g. "@reportkit/postgres" */
  name: string;
  /** What it is needed for, after "install <name>": "to read a Postgres journal". */
  purpose: string;
  /** The drivers it brings (pg, ioredis): their absence is the same problem. */
  drivers: readonly string[];
}

export const POSTGRES: OptionalPackage = {
  name: "@reportkit/postgres",
  purpose: "to read a Postgres journal",
  drivers: ["pg"],
};
export const INSIGHTS: OptionalPackage = {
  name: "@reportkit/postgres",
  purpose: "to read the ledger's insights",
  drivers: ["pg"],
};
export const REDIS: OptionalPackage = {
  name: "@reportkit/redis",
  purpose: "to read a Redis journal",
  drivers: ["ioredis"],
};
export const PG_BOSS: OptionalPackage = {
  name: "@reportkit/pg-boss",
  purpose: "to look after queue mode's jobs on Postgres",
  drivers: ["pg-boss", "pg"],
};
export const BULLMQ: OptionalPackage = {
  name: "@reportkit/bullmq",
  purpose: "to look after queue mode's jobs",
  drivers: ["bullmq", "ioredis"],
};

/**
 * `load()` (an `import()` of `needed.name`), or, when it or one of its drivers is not
 * installed, a CliError saying what to install: the sandbox, `send` and `webhooks` need none of
 * them, so installing the CLI brings no database driver.
 */
export async function loadOptional<T>(needed: OptionalPackage, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const message = error instanceof Error ? error.message : "";
    const missing = [needed.name, ...needed.drivers].some((name) => message.includes(`'${name}'`));
    if ((code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && missing) {
      throw new CliError(
        `install ${needed.name} ${needed.purpose}: npm i ${needed.name} ${needed.drivers.join(" ")}`,
      );
    }
    throw error;
  }
}
