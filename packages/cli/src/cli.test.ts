// The real `reportkit` binary (dist/cli.js, which the package's "bin" runs, built here with
// tsc -b), run as a child process against a sandbox and recording receivers on this machine.
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "@reportkit/client";
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const NODE_ARGS = [CLI];
const API_TOKEN = "cli-test-api-token-777";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  for (const key of [
    "REPORTKIT_BASE_URL",
    "REPORTKIT_API_TOKEN",
    "REPORTKIT_SECRET",
    "REPORTKIT_TOKEN",
  ]) {
    if (!(key in extra)) delete env[key];
  }
  return env;
}

function reportkit(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...NODE_ARGS, ...args],
      { cwd: ROOT, env: cleanEnv(env), timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

interface Receiver {
  url: string;
  requests: { method: string; url: string; authorization: string | undefined; body: string }[];
  close(): Promise<void>;
}

async function startReceiver(
  statusFor: (n: number) => number,
  replyFor: (n: number) => string = () => "",
): Promise<Receiver> {
  const requests: Receiver["requests"] = [];
  const server = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const n = requests.length;
    requests.push({
      method: req.method ?? "",
      url: req.url ?? "",
      authorization: req.headers.authorization,
      body,
    });
    res.writeHead(statusFor(n)).end(replyFor(n));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/reports`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

let sandbox: Sandbox;
let env: Record<string, string>;
const receivers: Receiver[] = [];

beforeAll(async () => {
  // Up to date after `pnpm test`'s typecheck; builds the CLI and what it imports otherwise.
  execFileSync(join(ROOT, "node_modules/.bin/tsc"), ["-b", "packages/cli"], {
    cwd: ROOT,
    stdio: "inherit",
  });
  sandbox = await createSandbox({ token: API_TOKEN });
  env = { REPORTKIT_BASE_URL: sandbox.baseUrl, REPORTKIT_API_TOKEN: API_TOKEN };
});

afterAll(() => sandbox.close());

afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

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

describe("reportkit send", () => {
  it("pushes a realistic DLR with the webhook's secret as the bearer and prints the attempt", async () => {
    const receiver = await startReceiver(() => 200);
    receivers.push(receiver);
    const run = await reportkit([
      "send",
      "delivery",
      "--to",
      receiver.url,
      "--secret",
      "rcv-secret",
      "--status",
      "UNDELIV",
      "--custom",
      "o-9",
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/#1\/4 {2}200 {2}delivered/);
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request?.authorization).toBe("Bearer rcv-secret");
    expect(`${run.stdout}${run.stderr}`).not.toContain("rcv-secret");
    expect(JSON.parse(request?.body ?? "")).toMatchObject({
      status: "UNDELIV",
      custom: "o-9",
      credits: "0.2500",
      units: 1,
    });
  });

  it("retries a failing receiver provider-style and succeeds on the retry", async () => {
    const receiver = await startReceiver((n) => (n === 0 ? 500 : 202));
    receivers.push(receiver);
    const run = await reportkit(
      ["send", "call", "--to", receiver.url, "--interval", "50ms", "--to-number", "14155550100"],
      { REPORTKIT_SECRET: "env-secret" },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/#1\/4 {2}500 {2}retry at/);
    expect(run.stdout).toMatch(/#2\/4 {2}202 {2}delivered/);
    expect(receiver.requests.map((r) => r.authorization)).toEqual([
      "Bearer env-secret",
      "Bearer env-secret",
    ]);
    expect(JSON.parse(receiver.requests[0]?.body ?? "")).toMatchObject({
      to: 14155550100,
      status: "ANSWER",
    });
  });

  it("writes wall-clock times in Asia/Kolkata by default, the zone receivers read them in", async () => {
    const receiver = await startReceiver(() => 200);
    receivers.push(receiver);
    const before = Math.floor(Date.now() / 1000) * 1000;
    expect((await reportkit(["send", "call", "--to", receiver.url, "--token", "t"])).code).toBe(0);
    const utc = ["--time-zone", "UTC"];
    expect(
      (await reportkit(["send", "call", "--to", receiver.url, "--token", "t", ...utc])).code,
    ).toBe(0);
    const after = Date.now();
    // The wall clock read as if it were UTC, minus the zone's offset, is the instant.
    const endedAt = (body: string | undefined, offsetMs: number) =>
      Date.parse(`${(JSON.parse(body ?? "") as { end_at: string }).end_at.replace(" ", "T")}Z`) -
      offsetMs;
    const [kolkata, inUtc] = receiver.requests;
    for (const ended of [endedAt(kolkata?.body, 5.5 * 3_600_000), endedAt(inUtc?.body, 0)]) {
      expect(ended).toBeGreaterThanOrEqual(before);
      expect(ended).toBeLessThanOrEqual(after);
    }
  });

  it("drops after 1 + retries attempts, exits 1 with the reason, --json lists the attempts", async () => {
    const receiver = await startReceiver(() => 503);
    receivers.push(receiver);
    const run = await reportkit([
      "send",
      "delivery",
      "--to",
      receiver.url,
      "--retries",
      "2",
      "--interval",
      "10ms",
      "--json",
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      [
        "reportkit: no secret set (--secret or REPORTKIT_SECRET): sending without Authorization; a receiver that checks the webhook's secret answers 401.",
        "reportkit: the receiver did not accept the report: dropped after 3 attempts (last: status 503).",
        "",
      ].join("\n"),
    );
    const out = JSON.parse(run.stdout);
    expect(out.outcome).toBe("dropped");
    expect(
      out.attempts.map((a: { attempt: number; status_code: number; outcome: string }) => [
        a.attempt,
        a.status_code,
        a.outcome,
      ]),
    ).toEqual([
      [1, 503, "retrying"],
      [2, 503, "retrying"],
      [3, 503, "dropped"],
    ]);
    expect(receiver.requests).toHaveLength(3);
  });

  it("retries quickly by default, says when no secret is set, and shows the receiver's refusal", async () => {
    const receiver = await startReceiver(
      (n) => (n === 0 ? 401 : 200),
      (n) =>
        n === 0 ? '{\n  "error": "invalid_token",\n  "message": "Bearer token is wrong"\n}' : "",
    );
    receivers.push(receiver);
    const run = await reportkit(["send", "delivery", "--to", receiver.url]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("(1 + 3 attempts, 2s apart)");
    expect(run.stderr).toBe(
      "reportkit: no secret set (--secret or REPORTKIT_SECRET): sending without Authorization; a receiver that checks the webhook's secret answers 401.\n",
    );
    expect(run.stdout).toMatch(
      /#1\/4 {2}401 {2}retry at \d\d:\d\d:\d\d\n {2}reply: \{ "error": "invalid_token", "message": "Bearer token is wrong" \}\n/,
    );
    expect(run.stdout).toMatch(/#2\/4 {2}200 {2}delivered/);
    expect(receiver.requests.map((r) => r.authorization)).toEqual([undefined, undefined]);
    // About 2 s between the two attempts: the quick default, not the provider's 30 minutes.
    const times = [...run.stdout.matchAll(/^(\d\d):(\d\d):(\d\d) delivery/gm)].map(
      (m) => Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]),
    );
    expect(times).toHaveLength(2);
    expect(((times[1] as number) - (times[0] as number) + 86_400) % 86_400).toBeLessThan(10);
  });

  it("ends a refusal with the receiver's error body", async () => {
    const receiver = await startReceiver(
      () => 422,
      () => '{"error":"unknown report"}',
    );
    receivers.push(receiver);
    const run = await reportkit([
      "send",
      "call",
      "--to",
      receiver.url,
      "--token",
      "t",
      "--retries",
      "0",
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'reportkit: the receiver did not accept the report: dropped after 1 attempt (last: status 422: {"error":"unknown report"}).\n',
    );
  });

  it("rejects a bad duration or URL before sending", async () => {
    const duration = await reportkit([
      "send",
      "delivery",
      "--to",
      "http://127.0.0.1:9/",
      "--interval",
      "5",
    ]);
    expect(duration.code).toBe(1);
    expect(duration.stderr).toMatch(/--interval must be a number with a unit/);
    const url = await reportkit(["send", "delivery", "--to", "ftp://x"]);
    expect(url.stderr).toMatch(/--to must be an http or https URL/);
  });
});

describe("reportkit trigger", () => {
  async function hookTo(url: string, target: Sandbox = sandbox, token = API_TOKEN) {
    const client = createClient({ baseUrl: target.baseUrl, token });
    return client.webhooks.create({ name: "trigger", uri: url, secret: "hook-secret" });
  }

  it("asks the sandbox to push a delivery report and, with --wait, follows it to delivered", async () => {
    const receiver = await startReceiver(() => 200);
    receivers.push(receiver);
    const hook = await hookTo(receiver.url);
    const run = await reportkit(
      [
        "trigger",
        "delivery",
        "--webhook",
        hook.id,
        "--status",
        "UNDELIV",
        "--custom",
        "order-9",
        "--mobile",
        "14155550100",
        "--wait",
      ],
      env,
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        `^delivery report \\S+:1 → webhook ${hook.id}: queued, the sandbox is pushing it\n`,
      ),
    );
    expect(run.stdout).toMatch(/POST \S+\/reports {2}#1\/4 {2}200 {2}delivered\n$/);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]?.authorization).toBe("Bearer hook-secret");
    expect(run.stdout).not.toContain("hook-secret");
    // The sandbox pushes documented payloads: a trailing comma before the closing brace.
    expect(JSON.parse((receiver.requests[0]?.body ?? "").replace(/,\n\}$/, "\n}"))).toMatchObject({
      status: "UNDELIV",
      custom: "order-9",
      mobile: "14155550100",
    });
  });

  it("makes a call and prints the sandbox's answer as JSON; without --wait it returns at once", async () => {
    const receiver = await startReceiver(() => 202);
    receivers.push(receiver);
    const hook = await hookTo(receiver.url);
    const run = await reportkit(
      [
        "trigger",
        "call",
        "--webhook",
        hook.id,
        "--status",
        "BUSY",
        "--to-number",
        "919800000001",
        "--json",
      ],
      env,
    );
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out).toMatchObject({
      webhook_id: hook.id,
      pushed: true,
      report: { status: "BUSY", to: 919800000001, duration: "0" },
    });
    await expect.poll(() => receiver.requests.length, { timeout: 15_000 }).toBe(1);
    expect(receiver.requests[0]?.body).toContain(`"mid": "${out.report_id}",`);
  });

  it("with --wait, exits 1 when the report is dropped and shows the receiver's reply", async () => {
    const quick = await createSandbox({ token: API_TOKEN, retries: 1, retryIntervalMs: 20 });
    try {
      const receiver = await startReceiver(
        () => 401,
        () => '{"error":"bad token"}',
      );
      receivers.push(receiver);
      const hook = await hookTo(receiver.url, quick);
      const run = await reportkit(["trigger", "delivery", "--webhook", hook.id, "--wait"], {
        REPORTKIT_BASE_URL: quick.baseUrl,
        REPORTKIT_API_TOKEN: API_TOKEN,
      });
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(
        /#1\/2 {2}401 {2}retrying {2}retry at \S+ {2}reply: \{"error":"bad token"\}/,
      );
      expect(run.stdout).toMatch(/#2\/2 {2}401 {2}dropped {2}reply: /);
      expect(run.stderr).toBe(
        "reportkit: the receiver did not accept the report: dropped after 2 attempts.\n",
      );
    } finally {
      await quick.close();
    }
  });

  it("says what is wrong: no sandbox, bad token, unknown webhook, a sandbox not running", async () => {
    const none = await reportkit(["trigger", "delivery", "--webhook", "x"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(
      /^reportkit: no sandbox: pass --base-url or set REPORTKIT_BASE_URL/,
    );
    const badToken = await reportkit(["trigger", "delivery", "--webhook", "x"], {
      ...env,
      REPORTKIT_API_TOKEN: "wrong-token",
    });
    expect(badToken.stderr).toBe(
      "reportkit: POST sandbox/sms failed with 401: Unauthenticated. (check REPORTKIT_API_TOKEN / --api-token)\n",
    );
    const unknown = await reportkit(["trigger", "call", "--webhook", "no-such-hook"], env);
    expect(unknown.stderr).toBe(
      "reportkit: POST sandbox/calls failed with 422: The selected webhook id is invalid.\n",
    );
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = await reportkit(["trigger", "delivery", "--webhook", "x"], {
      REPORTKIT_BASE_URL: `http://127.0.0.1:${port}/api/v2/`,
      REPORTKIT_API_TOKEN: API_TOKEN,
    });
    expect(down.stderr).toMatch(
      /^reportkit: could not reach the sandbox at http:\/\/127\.0\.0\.1:\d+\/api\/v2\/ \(ECONNREFUSED\): is `reportkit sandbox` running there\?\n$/,
    );
    expect(`${badToken.stderr}${unknown.stderr}`).not.toContain("wrong-token");
  });
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
        ...NODE_ARGS,
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
      { cwd: ROOT, env: cleanEnv() },
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

    const proc = spawn(process.execPath, [...NODE_ARGS, "sandbox", "--port", "0"], {
      cwd: ROOT,
      env: cleanEnv(),
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

describe("terminal escapes from other parties", () => {
  // A title change, a clipboard write, and an erase-line + carriage return that would hide the
  // real line behind a fake "delivered".
  const ATTACK = "\u001b]0;pwned\u0007\u001b]52;c;Y2xpcA==\u0007\u001b[2K\r\u009b2Kdelivered OK";
  const SHOWN =
    "\\u001b]0;pwned\\u0007\\u001b]52;c;Y2xpcA==\\u0007\\u001b[2K\\u000d\\u009b2Kdelivered OK";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for them
  const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

  /** A management API that serves one webhook whose name and uri carry the attack. */
  async function hostileApi(): Promise<{ baseUrl: string; close(): Promise<void> }> {
    const webhook = {
      id: "9a7b4c2e-3f1d-4e5a-8b6c-0d9e8f7a6b5c",
      name: `evil${ATTACK}`,
      uri: `https://u:p4ss@x.example/${ATTACK}`,
      secret: null,
      verification_code: "********",
      status: "1",
      created_at: "2022-10-19T07:40:13.000000Z",
      updated_at: "2022-10-19T07:40:13.000000Z",
    };
    const server = http.createServer((req, res) => {
      const list = new URL(req.url ?? "/", "http://x").pathname.endsWith("/developer/webhooks");
      const data = list ? [webhook] : webhook;
      const body = {
        status: "OK",
        code: 200,
        message: "OK",
        data,
        links: { first: null, last: null, prev: null, next: null },
        meta: { current_page: 1, last_page: 1, per_page: 15, total: 1, from: 1, to: 1 },
      };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return {
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2/`,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }

  it("webhooks list and show print names and URIs with control characters escaped", async () => {
    const api = await hostileApi();
    try {
      const hostile = { REPORTKIT_BASE_URL: api.baseUrl, REPORTKIT_API_TOKEN: API_TOKEN };
      const list = await reportkit(["webhooks", "list"], hostile);
      const show = await reportkit(["webhooks", "show", "9a7b4c2e"], hostile);
      const json = await reportkit(["webhooks", "show", "9a7b4c2e", "--json"], hostile);
      for (const run of [list, show, json]) {
        expect(run.code).toBe(0);
        expect(run.stdout).not.toMatch(CONTROL);
      }
      expect(list.stdout.split("\n")).toHaveLength(4); // header, row, total, final newline
      expect(list.stdout).toContain(`evil${SHOWN}`);
      expect(show.stdout).toContain(`name     evil${SHOWN}\n`);
      // The URI's password stays off the screen too (point 4 of the same review).
      expect(show.stdout).toContain(`uri      https://********@x.example/${SHOWN}\n`);
      expect(list.stdout).toContain(`https://********@x.example/${SHOWN}`);
      expect(list.stdout).not.toContain("p4ss");
      // Still JSON, with the same text: \u009b is a valid JSON escape of the character.
      expect(JSON.parse(json.stdout).name).toBe(`evil${ATTACK}`);
    } finally {
      await api.close();
    }
  });

  it("send prints a receiver's reply with control characters escaped", async () => {
    const receiver = await startReceiver(
      () => 500,
      () => `{"error":"${ATTACK}"}`,
    );
    receivers.push(receiver);
    const run = await reportkit(["send", "delivery", "--to", receiver.url, "--retries", "0"]);
    expect(run.code).toBe(1);
    // A reply is shown on one line: its carriage return is whitespace, printed as a space.
    const reply = SHOWN.replace("\\u000d", " ");
    expect(run.stdout).toContain(`reply: {"error":"${reply}"}`);
    expect(`${run.stdout}${run.stderr}`).not.toMatch(CONTROL);
    expect(run.stderr).toContain(reply);
  });

  it("the sandbox refuses control characters in ids and names with 422", async () => {
    const post = (path: string, body: object) =>
      fetch(new URL(path, sandbox.baseUrl), {
        method: "POST",
        headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const named = await post("developer/webhooks", {
      name: `a${ATTACK}`,
      uri: "http://x.example/",
    });
    expect(named.status).toBe(422);
    expect(((await named.json()) as { errors: object }).errors).toEqual({
      name: ["The name field must not contain control characters."],
    });
    const hook = await createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN }).webhooks.create(
      { name: "plain", uri: "http://127.0.0.1:9/" },
    );
    const call = await post("sandbox/calls", { webhook_id: hook.id, mid: `m\u001b]0;x\u0007` });
    expect(call.status).toBe(422);
    expect(((await call.json()) as { errors: object }).errors).toEqual({
      mid: [
        "The mid field must be a single-line string of at most 64 characters, without control characters.",
      ],
    });
    const sms = await post("sandbox/sms", { webhook_id: hook.id, cid: "c\u009b2K" });
    expect(sms.status).toBe(422);
  });
});
