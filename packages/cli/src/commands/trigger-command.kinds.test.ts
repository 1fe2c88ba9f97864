// `reportkit trigger unsubscribe|event` and `trigger call --source C2C`: the real binary asking
// a sandbox on this machine to push an opt-out or an event (to the webhook subscribed to it,
// `--webhook` subscribing one first, as the provider routes events) and a Click2Call report.
import { createClient } from "@reportkit/client";
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  buildCli,
  type RecordingReceiver,
  reportkit,
  startReceiver,
} from "../../../../test/support/reportkit-cli.js";

const API_TOKEN = "cli-kinds-api-token-515";

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

async function hookTo(url: string) {
  const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
  return client.webhooks.create({ name: "trigger-kinds", uri: url, secret: "hook-secret" });
}

describe("reportkit trigger, every kind", () => {
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
