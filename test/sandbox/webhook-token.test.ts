// One token end to end through the sandbox: the bearer of a webhook's pushes is its token, else
// its secret, else the sandbox's REPORTKIT_TOKEN (`webhookToken`); the sandbox says which,
// never the value; `token` can be edited; and the verification challenge is sent to a real
// reportkit receiver, with its outcome in the API reply.
import { createReceiver } from "@reportkit/core";
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import { afterEach, describe, expect, it } from "vitest";
import { type Recorder, type Running, serveReceiver, startRecorder } from "./servers.js";

const API_TOKEN = "webhook-token-api-token";
let sandbox: Sandbox | undefined;
let recorder: Recorder | undefined;
let running: Running | undefined;

afterEach(async () => {
  await sandbox?.close();
  await recorder?.close();
  await running?.close();
  sandbox = recorder = running = undefined;
});

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(new URL(path, sandbox?.baseUrl), {
    method,
    headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function pushedBearer(webhookId: string): Promise<string | undefined> {
  const sent = sandbox?.sendSms({ webhookId });
  await sent?.outcome;
  return recorder?.requests.at(-1)?.headers.authorization;
}

describe("the sandbox's push bearer", () => {
  it("is the webhook's token, else its secret, else webhookToken (REPORTKIT_TOKEN); the sandbox says which", async () => {
    recorder = await startRecorder();
    sandbox = await createSandbox({ token: API_TOKEN, webhookToken: "env-token" });
    const uri = `${recorder.url}/webhooks`;
    const made = async (extra: object) =>
      (await api("POST", "developer/webhooks", { name: "t", uri, ...extra })).json.data as {
        id: string;
      };
    const withToken = await made({ token: "own-token", secret: "own-secret" });
    const withSecret = await made({ secret: "own-secret" });
    const bare = await made({});

    expect(await pushedBearer(withToken.id)).toBe("Bearer own-token");
    expect(await pushedBearer(withSecret.id)).toBe("Bearer own-secret");
    expect(await pushedBearer(bare.id)).toBe("Bearer env-token");

    const bearers = [];
    for (const { id } of [withToken, withSecret, bare]) {
      const shown = await api("GET", `sandbox/webhooks/${id}`);
      expect(JSON.stringify(shown.json)).not.toMatch(/own-token|own-secret|env-token/);
      bearers.push((shown.json.data as { bearer: unknown }).bearer);
    }
    expect(bearers).toEqual([
      { set: true, from: "token" },
      { set: true, from: "secret" },
      { set: true, from: "REPORTKIT_TOKEN" },
    ]);
    // The push log masks the fallback token like a webhook's own.
    const log = await api("GET", `sandbox/push-attempts?webhook_id=${bare.id}`);
    expect(JSON.stringify(log.json)).not.toContain("env-token");
  });

  it("without webhookToken a bare webhook is pushed without Authorization, and says so; edit sets a token", async () => {
    recorder = await startRecorder();
    sandbox = await createSandbox({ token: API_TOKEN });
    const uri = `${recorder.url}/webhooks`;
    const { id } = (await api("POST", "developer/webhooks", { name: "t", uri })).json.data as {
      id: string;
    };
    expect(await pushedBearer(id)).toBeUndefined();
    expect((await api("GET", `sandbox/webhooks/${id}`)).json.data).toMatchObject({
      bearer: { set: false, from: null },
    });
    const edited = await api("PUT", `developer/webhooks/${id}`, { name: "t", uri, token: "late" });
    expect(edited.status).toBe(200);
    expect(await pushedBearer(id)).toBe("Bearer late");
    expect((await api("GET", `sandbox/webhooks/${id}`)).json.data).toMatchObject({
      bearer: { set: true, from: "token" },
    });
  });
});

describe("the verification challenge, sent by the sandbox", () => {
  async function withReceiver() {
    const receiver = createReceiver({ token: "rcv-token", logger: false, onDelivery() {} });
    running = await serveReceiver(receiver);
    sandbox = await createSandbox({ token: API_TOKEN, timeoutMs: 5_000 });
    return `${running.url}/webhooks`;
  }

  it("create with challenge: true sends it; the reply's envelope carries the outcome", async () => {
    const uri = await withReceiver();
    const good = await api("POST", "developer/webhooks", {
      name: "c",
      uri,
      token: "rcv-token",
      challenge: true,
    });
    expect(good.status).toBe(200);
    expect(good.json.challenge).toMatchObject({
      sent: true,
      passed: true,
      status_code: 200,
      reason: null,
    });
    expect(JSON.stringify(good.json)).not.toContain("rcv-token");
    expect(good.json.data).not.toHaveProperty("challenge");

    const wrong = await api("POST", "developer/webhooks", {
      name: "c",
      uri,
      token: "not-the-receivers",
      challenge: "1",
    });
    expect(wrong.json.challenge).toMatchObject({ sent: true, passed: false, status_code: 401 });
    expect((wrong.json.challenge as { reason: string }).reason).toMatch(
      /^answered 401 \(the receiver's token is not this webhook's\)/,
    );
  });

  it("POST sandbox/webhooks/{id}/challenge sends it again and keeps the outcome for the dashboard", async () => {
    const uri = await withReceiver();
    const { id } = (await api("POST", "developer/webhooks", { name: "c", uri })).json.data as {
      id: string;
    };
    const none = await api("POST", `sandbox/webhooks/${id}/challenge`);
    expect(none.json).toMatchObject({
      message: "Challenge failed",
      data: { sent: false, passed: false },
    });
    await api("PUT", `developer/webhooks/${id}`, { name: "c", uri, token: "rcv-token" });
    const passed = await api("POST", `sandbox/webhooks/${id}/challenge`);
    expect(passed.json).toMatchObject({ message: "Challenge passed", data: { passed: true } });
    expect((await api("GET", `sandbox/webhooks/${id}`)).json.data).toMatchObject({
      challenge: { passed: true, status_code: 200 },
    });
    // Without challenge the webhook is created as documented: no challenge key.
    const plain = await api("POST", "developer/webhooks", { name: "p", uri });
    expect(plain.json).not.toHaveProperty("challenge");
    const bad = await api("POST", "developer/webhooks", { name: "p", uri, challenge: "maybe" });
    expect(bad).toMatchObject({
      status: 422,
      json: { errors: { challenge: [expect.any(String)] } },
    });
  });
});
