// The `reportkit` program itself (its help, its version, a usage error): the real binary
// (dist/cli.js, which the package's "bin" runs, built here with tsc -b) in a child process.
import { beforeAll, describe, expect, it } from "vitest";
import { buildCli, reportkit } from "../../../test/support/reportkit-cli.js";

beforeAll(() => buildCli());

describe("reportkit", () => {
  it("prints help and its version", async () => {
    const help = await reportkit(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: reportkit/);
    for (const command of ["sandbox", "webhooks", "send", "trigger"]) {
      expect(help.stdout).toContain(command);
    }
    const version = await reportkit(["--version"]);
    expect(version).toMatchObject({ code: 0, stdout: "0.1.0\n" });
  });

  it("fails with a non-zero exit and one line for a usage error", async () => {
    const run = await reportkit(["send", "sms", "--to", "http://127.0.0.1:9/"]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(
      /'sms' is invalid for argument 'kind'\. Allowed choices are delivery, call/,
    );
  });
});
