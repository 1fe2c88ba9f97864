// `reportkit journal list` and `reportkit replay` against a journal database they cannot reach:
// one line saying what failed on which server (host and port, never the password), exit code 1.
// The CLI's main, in process. (The journal's entries, listed and replayed against real Postgres
// and Redis servers: test/journal/.)
import { describe, expect, it } from "vitest";
import { main } from "../main.js";

async function reportkit(
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(["node", "reportkit", ...args], {
    stdout: (text: string) => {
      stdout += text;
    },
    stderr: (text: string) => {
      stderr += text;
    },
    env: {},
    stopSignal: () => new Promise(() => {}),
  });
  return { code, stdout, stderr };
}

// Port 9 (discard) has no listener: the connection is refused at once.
describe("reportkit journal, the journal's database unreachable", () => {
  it("Redis: what failed and where, without the password, exit 1", async () => {
    const run = await reportkit("journal", "list", "--db", "redis://app:s3cret@127.0.0.1:9");
    expect(run).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "reportkit: listing the journal failed on Redis at redis://127.0.0.1:9 (connect ECONNREFUSED 127.0.0.1:9).\n",
    });
  });

  it.each([
    {
      what: "Redis on TLS, and `replay`: the scheme kept",
      args: ["replay", "--to", "http://127.0.0.1:3000", "--dry-run"],
      db: "rediss://:s3cret@127.0.0.1:9",
      says: /^reportkit: listing the journal failed on Redis at rediss:\/\/127\.0\.0\.1:9 \(.+\)\.\n$/,
    },
    {
      what: "a Redis Cluster as comma-separated URLs: its nodes named",
      args: ["journal", "list"],
      db: "redis://:s3cret@127.0.0.1:9,redis://:s3cret@127.0.0.1:19",
      says: /^reportkit: listing the journal failed on Redis Cluster at redis:\/\/127\.0\.0\.1:9,127\.0\.0\.1:19 \(.+\)\.\n$/,
    },
    {
      what: "Postgres: the same shape",
      args: ["journal", "list"],
      db: "postgres://app:s3cret@127.0.0.1:9/app",
      says: /^reportkit: [a-z ]+ failed on Postgres at 127\.0\.0\.1:9 \(connect ECONNREFUSED 127\.0\.0\.1:9\)\.\n$/,
    },
  ])("$what", async ({ args, db, says }) => {
    const run = await reportkit(...args, "--db", db);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(says);
    expect(run.stderr).not.toContain("s3cret");
  });
});
