// `reportkit send delivery|call` as a new user runs it: the real binary (dist/cli.js, built here
// with tsc -b) in a child process, pushing to a recording receiver on this machine. What it
// prints never holds the webhook's secret (--secret, its old name --token, or the environment),
// and it does not load BullMQ or ioredis (only the `queue` commands do).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  buildCli,
  type RecordingReceiver,
  reportkit,
  startReceiver,
} from "../../../../test/support/reportkit-cli.js";

const TOKEN = "Echoed-Secret-Token-42";

let server: http.Server;
let url: string;
let dir: string;

beforeAll(async () => {
  buildCli();
  // A receiver that refuses, echoing the Authorization header and the token in other cases.
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const given = req.headers.authorization ?? "";
      res.writeHead(401, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          error: `bad credentials: ${given}`,
          upper: given.toUpperCase(),
          lower: given.toLowerCase(),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  dir = mkdtempSync(join(tmpdir(), "reportkit-send-"));
});

afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  rmSync(dir, { recursive: true, force: true });
});

/** `reportkit ...args` with `nodeArgs` before the script and `env` (REPORTKIT_* of none other). */
const run = (args: string[], nodeArgs: string[] = [], env: Record<string, string> = {}) =>
  reportkit(args, env, nodeArgs);

const receivers: RecordingReceiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
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

describe("reportkit send redacts the secret from everything it prints", () => {
  it("a receiver echoing Authorization (any case): the secret is never printed, [token] is", async () => {
    for (const [args, env] of [
      [["--secret", TOKEN], {}],
      [["--token", TOKEN], {}],
      [[], { REPORTKIT_SECRET: TOKEN }],
      [[], { REPORTKIT_TOKEN: TOKEN }],
    ] as const) {
      const sent = await run(
        ["send", "delivery", "--to", url, "--retries", "1", "--interval", "10ms", ...args],
        [],
        env,
      );
      expect(sent.code).toBe(1);
      const printed = sent.stdout + sent.stderr;
      expect(printed.toLowerCase()).not.toContain(TOKEN.toLowerCase());
      expect(printed).toContain("bad credentials: Bearer [token]");
      expect(sent.stderr).toMatch(/did not accept the report: dropped after 2 attempts/);
      expect(sent.stderr).toContain("[token]");
    }
  });

  it("a reply cut to 300 characters is redacted first: an echo across the cut shows no part of the secret", async () => {
    // "Bearer " ends 4 characters before the cut: cut first, "Echo" would be printed.
    const receiver = await startReceiver(
      () => 401,
      () => `${"x".repeat(289)} Bearer ${TOKEN} and more`,
    );
    receivers.push(receiver);
    const sent = await run(["send", "delivery", "--to", receiver.url, "--retries", "0"], [], {
      REPORTKIT_SECRET: TOKEN,
    });
    expect(sent.code).toBe(1);
    const printed = sent.stdout + sent.stderr;
    for (let n = 3; n <= TOKEN.length; n++) expect(printed).not.toContain(TOKEN.slice(0, n));
    // Redacted, then cut: the cut falls inside "[token]".
    expect(sent.stdout).toContain(" Bearer [to…\n");
  });

  it("--json too", async () => {
    const sent = await run([
      "send",
      "call",
      "--to",
      url,
      "--retries",
      "0",
      "--secret",
      TOKEN,
      "--json",
    ]);
    expect(sent.code).toBe(1);
    expect((sent.stdout + sent.stderr).toLowerCase()).not.toContain(TOKEN.toLowerCase());
    const printed = JSON.parse(sent.stdout) as { attempts: { response_body: string }[] };
    expect(printed.attempts[0]?.response_body).toContain("bad credentials: Bearer [token]");
  });
});

describe("reportkit send loads neither BullMQ nor ioredis", () => {
  it("the modules a send resolves (traced by a loader hook) include none of theirs; `queue` does load them", async () => {
    const trace = join(dir, "resolved.txt");
    const hooks = join(dir, "hooks.mjs");
    writeFileSync(
      hooks,
      `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(${JSON.stringify(trace)}, resolved.url + "\\n");
  return resolved;
}
`,
    );
    // module.register() is deprecated from Node 26 (DEP0205, a warning on every run); its
    // successor registerHooks() (Node 22.15 and later) runs the hook in this thread, and is
    // synchronous. Node 20 has only register().
    const register = join(dir, "register.mjs");
    writeFileSync(
      register,
      `import { appendFileSync } from "node:fs";
import * as nodeModule from "node:module";
if (typeof nodeModule.registerHooks === "function") {
  nodeModule.registerHooks({
    resolve(specifier, context, next) {
      const resolved = next(specifier, context);
      appendFileSync(${JSON.stringify(trace)}, resolved.url + "\\n");
      return resolved;
    },
  });
} else {
  nodeModule.register(${JSON.stringify(pathToFileURL(hooks).href)});
}
`,
    );
    const traced = async (args: string[]) => {
      writeFileSync(trace, "");
      await run(args, ["--import", pathToFileURL(register).href]);
      return readFileSync(trace, "utf8").split("\n").filter(Boolean);
    };

    const send = await traced(["send", "delivery", "--to", url, "--retries", "0"]);
    // The trace works: the CLI's own modules and the sandbox's are in it.
    expect(send.some((u) => u.includes("/send-command.js"))).toBe(true);
    expect(send.some((u) => u.includes("sandbox"))).toBe(true);
    expect(send.filter((u) => /bullmq|ioredis/i.test(u))).toEqual([]);

    // The same trace sees them when a queue command runs (it fails to connect: port 9).
    const queue = await traced(["queue", "failed", "--redis", "redis://127.0.0.1:9"]);
    expect(queue.some((u) => /node_modules\/.*bullmq/.test(u))).toBe(true);
  });
});
