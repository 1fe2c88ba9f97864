// `reportkit webhooks create|list|show|edit|delete`: the real binary (dist/cli.js, built here
// with tsc -b) in a child process against a sandbox on this machine.
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, reportkit } from "../../../../test/support/reportkit-cli.js";

const API_TOKEN = "cli-test-api-token-777";

let sandbox: Sandbox;
let env: Record<string, string>;

beforeAll(async () => {
  buildCli();
  sandbox = await createSandbox({ token: API_TOKEN });
  env = { REPORTKIT_BASE_URL: sandbox.baseUrl, REPORTKIT_API_TOKEN: API_TOKEN };
});
afterAll(() => sandbox.close());

describe("reportkit webhooks", () => {
  it("create, list, show, edit, delete against the sandbox, tables and --json", async () => {
    const created = await reportkit(
      [
        "webhooks",
        "create",
        "--name",
        "cli hook",
        "--uri",
        "https://my.app/reports",
        "--secret",
        "s",
        "--json",
      ],
      env,
    );
    expect(created.code).toBe(0);
    const hook = JSON.parse(created.stdout);
    expect(hook).toMatchObject({
      name: "cli hook",
      uri: "https://my.app/reports",
      status: 1,
      active: true,
      secret: "********",
    });
    expect(hook).not.toHaveProperty("raw");

    const table = await reportkit(["webhooks", "list"], env);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^ID\s+NAME\s+STATUS\s+CREATED\s+URI$/);
    expect(table.stdout).toContain(hook.id);
    expect(table.stdout).toMatch(/cli hook\s+active/);
    expect(lines.at(-1)).toMatch(/^page 1 of 1, \d+ webhooks?$/);

    const listed = JSON.parse(
      (await reportkit(["webhooks", "list", "--name", "cli hook", "--json"], env)).stdout,
    );
    expect(listed.data.map((w: { id: string }) => w.id)).toEqual([hook.id]);
    expect(listed.page).toMatchObject({ current: 1, perPage: 15 });

    const shown = await reportkit(["webhooks", "show", hook.id], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^id\\s+${hook.id}$`, "m"));
    expect(shown.stdout).toMatch(/^status\s+1 \(active\)$/m);

    // edit keeps name and uri when only the status changes
    const edited = await reportkit(
      ["webhooks", "edit", hook.id, "--status", "inactive", "--json"],
      env,
    );
    expect(edited.code).toBe(0);
    expect(JSON.parse(edited.stdout)).toMatchObject({
      name: "cli hook",
      uri: "https://my.app/reports",
      status: 0,
      active: false,
    });

    const deleted = await reportkit(["webhooks", "delete", hook.id], env);
    expect(deleted).toMatchObject({ code: 0, stdout: `Deleted webhook ${hook.id}\n` });

    const missing = await reportkit(["webhooks", "show", hook.id], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      `reportkit: GET developer/webhooks/${hook.id} failed with 404 Not Found: Webhook ${hook.id} not found.\n`,
    );
  });

  it("takes --base-url and --api-token flags instead of the environment", async () => {
    const run = await reportkit([
      "webhooks",
      "list",
      "--all",
      "--json",
      "--base-url",
      sandbox.baseUrl.replace(/\/$/, ""),
      "--api-token",
      API_TOKEN,
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toHaveProperty("data");
  });

  it("says what is missing or wrong, in one line, without the token", async () => {
    const noBase = await reportkit(["webhooks", "list"]);
    expect(noBase.code).toBe(1);
    expect(noBase.stderr).toMatch(
      /^reportkit: no base URL: pass --base-url or set REPORTKIT_BASE_URL/,
    );

    const noToken = await reportkit(["webhooks", "list"], { REPORTKIT_BASE_URL: sandbox.baseUrl });
    expect(noToken.stderr).toMatch(/^reportkit: no API token/);

    const badBase = await reportkit(
      ["webhooks", "list", "--base-url", "http://127.0.0.1:1/api/v1/"],
      env,
    );
    expect(badBase.stderr).toMatch(/^reportkit: `baseUrl` must end in \/api\/v2\//);

    const noTime = await reportkit(["webhooks", "list", "--timeout", "0s"], env);
    expect(noTime.code).toBe(1);
    expect(noTime.stderr).toMatch(/^reportkit: --timeout must be at least 1ms; got "0s"\./);

    const wrong = await reportkit(
      ["webhooks", "list", "--api-token", "definitely-wrong-token"],
      env,
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trim().split("\n")).toHaveLength(1);
    expect(wrong.stderr).toMatch(/401 Unauthorized: Unauthenticated\. Check the access token/);
    expect(wrong.stderr).not.toContain("definitely-wrong-token");

    const status = await reportkit(
      ["webhooks", "create", "--name", "x", "--uri", "https://a.example/", "--status", "on"],
      env,
    );
    expect(status.code).toBe(1);
    expect(status.stderr).toMatch(
      /option '--status <status>' argument 'on' is invalid\. Use 1 \(or active\) or 0 \(or inactive\)\./,
    );

    const invalid = await reportkit(["webhooks", "create", "--name", "x", "--uri", "nope"], env);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/422 Unprocessable Entity: The uri field must be a valid URL\./);
  });
});
