// `reportkit trigger delivery|call|unsubscribe|event`: the real binary (dist/cli.js, built here
// with tsc -b) in a child process, asking a sandbox on this machine to push to a recording
// receiver: a delivery report, an outbound dial's call report and a Click2Call's, an opt-out or
// an event (to the webhook subscribed to it, `--webhook` subscribing one first, as the provider
// routes events).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createClient } from "@reportkit/client";
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  buildCli,
  type RecordingReceiver,
  reportkit,
  startReceiver,
} from "../../../../test/support/reportkit-cli.js";

const API_TOKEN = "cli-test-api-token-777";

let sandbox: Sandbox;
let env: Record<string, string>;

beforeAll(async () => {
  buildCli();
  sandbox = await createSandbox({ token: API_TOKEN });
  env = { REPORTKIT_BASE_URL: sandbox.baseUrl, REPORTKIT_API_TOKEN: API_TOKEN };
});
afterAll(() => sandbox.close());

const receivers: RecordingReceiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
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

describe("reportkit trigger, every kind", () => {
  const hookTo = async (url: string) =>
    createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN }).webhooks.create({
      name: "trigger-kinds",
      uri: url,
      secret: "hook-secret",
    });

  it("subscribes --webhook to sms:unsubscription and pushes an opt-out there; the next one goes there unasked", async () => {
    const receiver = await startReceiver(() => 200);
    receivers.push(receiver);
    const hook = await hookTo(receiver.url);
    const first = await reportkit(
      ["trigger", "unsubscribe", "--webhook", hook.id, "--receiver", "919812345678", "--wait"],
      env,
    );
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      new RegExp(
        `^unsubscribe sms:unsubscription [0-9a-f-]{36} → webhook ${hook.id} \\(subscribed to sms:unsubscription now\\): queued, the sandbox is pushing it\n`,
      ),
    );
    expect(first.stdout).toMatch(/ {2}#1\/4 {2}200 {2}delivered\n$/);
    const second = await reportkit(["trigger", "unsubscribe", "--wait"], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(
      new RegExp(`^unsubscribe sms:unsubscription \\S+ → webhook ${hook.id}: queued`),
    );
    expect(receiver.requests.map((r) => JSON.parse(r.body).receiver)).toEqual([
      "919812345678",
      "919876543210",
    ]);
    expect(receiver.requests[0]?.authorization).toBe("Bearer hook-secret");
  });

  it("pushes an inbound VMN message (--event vmn:message:in --text) and prints the sandbox's answer as JSON", async () => {
    const receiver = await startReceiver(() => 202);
    receivers.push(receiver);
    const hook = await hookTo(receiver.url);
    const args = ["--event", "vmn:message:in", "--text", "STOP", "--json"];
    const run = await reportkit(["trigger", "event", "--webhook", hook.id, ...args], env);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      report_type: "event",
      event: "vmn:message:in",
      subscribed: true,
      report: { event: "vmn:message:in", payload: { message: { payload: { text: "STOP" } } } },
    });
    await expect.poll(() => receiver.requests.length, { timeout: 15_000 }).toBe(1);
    expect(JSON.parse(receiver.requests[0]?.body ?? "").event).toBe("vmn:message:in");
  });

  it("makes a Click2Call to an IVR flow (call --source C2C)", async () => {
    const receiver = await startReceiver(() => 200);
    receivers.push(receiver);
    const hook = await hookTo(receiver.url);
    const args = ["--source", "C2C", "--to-number", "flow:220", "--wait"];
    const run = await reportkit(["trigger", "call", "--webhook", hook.id, ...args], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^call report \(Click2Call\) [0-9a-f-]{36} → webhook /);
    expect(JSON.parse(receiver.requests[0]?.body ?? "")).toMatchObject({
      source: "C2C",
      to: "flow:220",
      status: "COMPLETED",
      status2: "ANSWER",
    });
  });

  it("says what the sandbox refused: a smart-link visit without its webhook, a field its body lacks", async () => {
    const noHook = await reportkit(["trigger", "event", "--event", "link:visit"], env);
    expect(noHook.stderr).toBe(
      "reportkit: POST sandbox/notifications failed with 422: The webhook id field is required: a smart-link visit goes to the webhook chosen for its link.\n",
    );
    const hook = await hookTo("http://127.0.0.1:9/reports");
    const foreign = await reportkit(
      ["trigger", "event", "--event", "link:visit", "--webhook", hook.id, "--text", "hi"],
      env,
    );
    expect(foreign.stderr).toBe(
      "reportkit: POST sandbox/notifications failed with 422: The text field is not part of a link:visit push; it takes mobile, link_id.\n",
    );
  });
});
