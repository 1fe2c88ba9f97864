// `reportkit sandbox`: the real binary (dist/cli.js, built here with tsc -b) in a child process
// and real HTTP receivers. It prints every push attempt and stops cleanly on a signal; the
// secret of its environment (REPORTKIT_SECRET, else REPORTKIT_TOKEN, its old name) is the bearer
// of webhooks without one; its start-up lines say so; it prints each verification it sends; and
// none of its lines shows a secret or a token.
import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createClient } from "@reportkit/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  buildCli,
  CLI,
  cliEnv,
  type RecordingReceiver,
  ROOT,
  reportkit,
  startReceiver,
} from "../../../../test/support/reportkit-cli.js";

beforeAll(() => buildCli());

const receivers: RecordingReceiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

describe("reportkit sandbox", () => {
  let child: ChildProcess | undefined;

  afterEach(() => {
    if (child !== undefined && child.exitCode === null) child.kill("SIGKILL");
    child = undefined;
  });

  it("runs the sandbox, prints every push attempt as it happens, and stops cleanly on SIGTERM", async () => {
    const receiver = await startReceiver((n) => (n === 0 ? 500 : 200));
    receivers.push(receiver);
    const proc = spawn(
      process.execPath,
      [
        CLI,
        "sandbox",
        "--port",
        "0",
        "--token",
        "spawned-token",
        "--retry-interval",
        "100ms",
        "--payloads",
        "complete",
      ],
      { cwd: ROOT, env: cliEnv() },
    );
    child = proc;
    let stdout = "";
    proc.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) =>
      proc.on("exit", (code) => resolve(code)),
    );

    await expect.poll(() => stdout, { timeout: 15_000 }).toMatch(/listening on (\S+)/);
    const baseUrl = /listening on (\S+)/.exec(stdout)?.[1] as string;
    expect(stdout).toContain("API token    (the one you gave)");
    expect(stdout).toContain(
      `  export REPORTKIT_BASE_URL=${baseUrl} REPORTKIT_API_TOKEN=<the token you gave>\n`,
    );
    expect(stdout).not.toContain("spawned-token");
    // The dashboard, served by the built package (dist/ finds the page's files too).
    const dashboardUrl = /dashboard {4}(\S+)/.exec(stdout)?.[1] as string;
    expect(dashboardUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/dashboard\/#key=\S+$/);
    const page = await fetch(dashboardUrl);
    expect([page.status, page.headers.get("content-type")]).toEqual([
      200,
      "text/html; charset=utf-8",
    ]);
    const key = new URL(dashboardUrl).hash.slice("#key=".length);
    const script = await fetch(new URL("app.js", dashboardUrl));
    expect(script.status).toBe(200);
    const viaKey = await fetch(new URL("api/developer/webhooks", dashboardUrl), {
      headers: { "x-reportkit-dashboard-key": key },
    });
    expect(viaKey.status).toBe(200);

    const client = createClient({ baseUrl, token: "spawned-token" });
    const hook = await client.webhooks.create({ name: "spawned", uri: receiver.url });
    const response = await fetch(`${baseUrl}sandbox/sms`, {
      method: "POST",
      headers: { authorization: "Bearer spawned-token", "content-type": "application/json" },
      body: JSON.stringify({ webhook_id: hook.id }),
    });
    expect(response.status).toBe(200);

    await expect.poll(() => stdout, { timeout: 10_000 }).toMatch(/#2\/4 {2}200 {2}delivered/);
    expect(stdout).toMatch(/#1\/4 {2}500 {2}retry at/);
    // --payloads complete: strict JSON with the unix fields.
    expect(JSON.parse(receiver.requests[0]?.body ?? "")).toHaveProperty("deliv_at");

    proc.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(stdout).toContain("SIGTERM: stopping the sandbox");
  });

  it("generates and prints a token when none is given; refuses a bad interval", async () => {
    const bad = await reportkit(["sandbox", "--retry-interval", "fast"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^reportkit: --retry-interval must be a number with a unit/);
    const shape = await reportkit(["sandbox", "--payloads", "strict"]);
    expect(shape.code).toBe(1);
    expect(shape.stderr).toMatch(/^reportkit: --payloads must be "documented" or "complete"/);

    const proc = spawn(process.execPath, [CLI, "sandbox", "--port", "0"], {
      cwd: ROOT,
      env: cliEnv(),
    });
    child = proc;
    let stdout = "";
    proc.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    await expect
      .poll(() => stdout, { timeout: 15_000 })
      .toMatch(/API token {4}(sandbox-[0-9a-f]{24})/);
    const baseUrl = /listening on (\S+)/.exec(stdout)?.[1] as string;
    const token = /API token {4}(\S+)/.exec(stdout)?.[1] as string;
    expect(stdout).toContain(
      `  export REPORTKIT_BASE_URL=${baseUrl} REPORTKIT_API_TOKEN=${token}\n`,
    );
    const page = await createClient({ baseUrl, token }).webhooks.list();
    expect(page.data).toEqual([]);
    const exited = new Promise<number | null>((resolve) =>
      proc.on("exit", (code) => resolve(code)),
    );
    proc.kill("SIGINT");
    expect(await exited).toBe(0);
  });
});

describe("reportkit sandbox and the webhook's secret", () => {
  const API_TOKEN = "sandbox-command-api-token";
  const HOOK_TOKEN = "sandbox-command-hook-token";

  let receiver: http.Server;
  let receiverUrl: string;
  const seen: { url: string; authorization: string | undefined }[] = [];
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    // Answers the verification as the provider's page asks, and every push 200.
    receiver = http.createServer(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
      if (req.url?.includes("token=")) {
        const { challenge } = JSON.parse(body.replace(/,\s*}$/, "}")) as { challenge: string };
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ challenge }));
      } else res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  });

  afterEach(() => {
    if (child !== undefined && child.exitCode === null) child.kill("SIGKILL");
    child = undefined;
    seen.length = 0;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => {
      receiver.close(() => resolve());
      receiver.closeAllConnections();
    });
  });

  /** Starts `reportkit sandbox` with `env` (and none of the reportkit variables it is not given). */
  async function sandbox(env: Record<string, string>) {
    const proc = spawn(process.execPath, [CLI, "sandbox", "--port", "0", "--token", API_TOKEN], {
      cwd: ROOT,
      env: cliEnv(env),
    });
    child = proc;
    let stdout = "";
    proc.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    await expect
      .poll(() => stdout, { timeout: 15_000, message: "the sandbox's start-up lines" })
      .toMatch(/Ctrl-C stops\.\n/);
    const baseUrl = /listening on (\S+)/.exec(stdout)?.[1] as string;
    return { output: () => stdout, client: createClient({ baseUrl, token: API_TOKEN }) };
  }

  it("REPORTKIT_SECRET: the bearer of webhooks without one; verifications printed; no value shown", async () => {
    const secret = "env-secret-value-31337";
    const { output, client } = await sandbox({ REPORTKIT_SECRET: secret });
    expect(output()).toContain(
      "  push bearer  a webhook's --secret, else REPORTKIT_SECRET of this environment\n",
    );
    expect(output()).toContain(
      '  reportkit webhooks create --name local --uri http://127.0.0.1:3000/webhooks --secret "$REPORTKIT_SECRET" --token "$REPORTKIT_VERIFICATION_TOKEN" --challenge\n',
    );
    const hook = await client.webhooks.create({ name: "env", uri: receiverUrl, token: HOOK_TOKEN });
    // Verified as it was created, with the environment's secret as the bearer.
    expect(seen).toEqual([
      { url: `/webhooks?token=${HOOK_TOKEN}`, authorization: `Bearer ${secret}` },
    ]);
    await expect
      .poll(() => output(), { timeout: 10_000, message: "the verification's line" })
      .toMatch(
        new RegExp(
          `^\\d\\d:\\d\\d:\\d\\d verification ${hook.id} → POST http://127\\.0\\.0\\.1:\\d+/webhooks\\?token=\\*{8}  200  verified$`,
          "m",
        ),
      );
    const sent = await fetch(new URL("sandbox/sms", client.baseUrl), {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ webhook_id: hook.id }),
    });
    expect(sent.status).toBe(200);
    await expect
      .poll(() => output(), { timeout: 10_000, message: "the push's line" })
      .toMatch(/#1\/4 {2}200 {2}delivered/);
    expect(seen.at(-1)).toEqual({ url: "/webhooks", authorization: `Bearer ${secret}` });
    expect(output()).not.toContain(secret);
    expect(output()).not.toContain(HOOK_TOKEN);
  });

  it("REPORTKIT_TOKEN, its old name: still the bearer, and the start-up line says to rename it", async () => {
    const { output, client } = await sandbox({ REPORTKIT_TOKEN: "old-name-secret-4242" });
    expect(output()).toContain(
      "  push bearer  a webhook's --secret, else REPORTKIT_TOKEN of this environment (its old name: rename it REPORTKIT_SECRET)\n",
    );
    const hook = await client.webhooks.create({ name: "old", uri: receiverUrl });
    const sent = await fetch(new URL("sandbox/sms", client.baseUrl), {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ webhook_id: hook.id }),
    });
    expect(sent.status).toBe(200);
    await expect
      .poll(() => seen.at(-1)?.authorization, { timeout: 10_000, message: "the push" })
      .toBe("Bearer old-name-secret-4242");
    expect(output()).not.toContain("old-name-secret-4242");
  });

  it("neither: says a webhook without --secret is pushed without Authorization", async () => {
    const { output } = await sandbox({});
    expect(output()).toContain(
      "  push bearer  a webhook's --secret (REPORTKIT_SECRET is not set here: a webhook without --secret is pushed without Authorization)\n",
    );
  });
});
