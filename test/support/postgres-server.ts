// A real PostgreSQL server for tests: a cluster of its own (initdb) in a temporary directory,
// started with pg_ctl on a free port, stopped (and the directory removed) after. initdb and the
// server refuse to run as root, so as root both run as the `postgres` OS user that Debian's
// postgresql package creates, and the directory is handed to that user. No mocks: tests that
// need Postgres talk to this server.
import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The newest installed server's bin directory (Debian: /usr/lib/postgresql/<major>/bin). */
const BIN: string | undefined = (() => {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((name) => existsSync(join(root, name, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] === undefined ? undefined : join(root, majors[0], "bin");
})();

const isRoot = process.getuid?.() === 0;

/** The `postgres` OS user's uid and gid, when running as root (the cluster must be theirs). */
const POSTGRES_USER: { uid: number; gid: number } | undefined = (() => {
  if (!isRoot) return undefined;
  try {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
})();

/** Whether a cluster can be started here (CI installs postgresql; a dev machine may lack it). */
export const hasPostgresServer: boolean =
  BIN !== undefined && (!isRoot || POSTGRES_USER !== undefined);

/**
 * The one line a Postgres test file prints when the server is missing, instead of running.
 * In CI a missing server is an error: every test must run there.
 */
export function requirePostgresServer(file: string): boolean {
  if (hasPostgresServer) return true;
  if (process.env.CI) throw new Error(`${file}: PostgreSQL is not installed (CI installs it).`);
  console.log(`${file}: PostgreSQL not found (apt-get install postgresql); not run here.`);
  return false;
}

export interface PostgresServer {
  readonly port: number;
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication, local only). */
  readonly url: string;
  readonly dir: string;
  /** Stops the server (fast shutdown: sessions are ended, their transactions rolled back). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data directory. */
  start(): Promise<void>;
  /** Stops it for good and removes its directory. */
  close(): Promise<void>;
}

export async function startPostgresServer(): Promise<PostgresServer> {
  if (BIN === undefined)
    throw new Error("PostgreSQL is not installed (apt-get install postgresql)");
  const bin = BIN;
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "reportkit-postgres-"));
  if (POSTGRES_USER !== undefined) chownSync(dir, POSTGRES_USER.uid, POSTGRES_USER.gid);
  const data = join(dir, "data");
  const log = join(dir, "server.log");

  await run(join(bin, "initdb"), [
    "-D",
    data,
    "-U",
    "postgres",
    "--auth=trust",
    "--encoding=UTF8",
    "--no-sync",
  ]);

  // The socket goes in the test's own directory (the system one may not be writable); no
  // fsync: a test cluster need not survive a power cut, and the shared machine is slow enough.
  const serverOptions = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    "-c fsync=off",
    "-c full_page_writes=off",
    "-c max_connections=200",
  ].join(" ");
  let running = false;

  async function start(): Promise<void> {
    if (running) return;
    await run(join(bin, "pg_ctl"), [
      "start",
      "-w",
      "-t",
      "60",
      "-D",
      data,
      "-l",
      log,
      "-o",
      serverOptions,
    ]);
    running = true;
  }

  async function stop(): Promise<void> {
    if (!running) return;
    await run(join(bin, "pg_ctl"), ["stop", "-w", "-t", "60", "-m", "fast", "-D", data]);
    running = false;
  }

  await start();
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dir,
    stop,
    start,
    async close() {
      try {
        await stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Runs a server program, as the `postgres` user when this process is root. */
function run(program: string, args: string[]): Promise<void> {
  const [cmd, argv] =
    POSTGRES_USER === undefined
      ? [program, args]
      : ["runuser", ["-u", "postgres", "--", program, ...args]];
  return new Promise((resolve, reject) => {
    execFile(cmd, argv, { encoding: "utf8", timeout: 90_000 }, (error, stdout, stderr) => {
      if (error === null) resolve();
      else reject(new Error(`${program} ${args[0]} failed: ${error.message}\n${stdout}${stderr}`));
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
