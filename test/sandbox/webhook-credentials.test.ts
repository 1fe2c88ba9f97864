// The webhook's two credentials through the sandbox, as the provider's pages have them: the
// secret is the bearer of every push (else the sandbox's `webhookSecret`, REPORTKIT_SECRET from
// the CLI, with `webhookToken` its old name), the token is never a bearer; the sandbox says
// which is set, never a value. The verification request itself is in verification.test.ts.
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import { afterEach, describe, expect, it } from "vitest";
import { type Recorder, startRecorder } from "./servers.js";

const API_TOKEN = "webhook-credentials-api-token";
let sandbox: Sandbox | undefined;
let recorder: Recorder | undefined;

afterEach(async () => {
  await sandbox?.close();
  await recorder?.close();
  sandbox = recorder = undefined;
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
  it("is the webhook's secret, else webhookSecret (REPORTKIT_SECRET), never its token; the sandbox says which", async () => {
    recorder = await startRecorder();
    sandbox = await createSandbox({ token: API_TOKEN, webhookSecret: "env-secret" });
    const uri = `${recorder.url}/webhooks`;
    const made = async (extra: object) =>
      (await api("POST", "developer/webhooks", { name: "t", uri, ...extra })).json.data as {
        id: string;
      };
    // challenge: false, the sandbox-only opt-out: only pushes reach the recorder.
    const both = await made({ token: "own-token", secret: "own-secret", challenge: false });
    const withToken = await made({ token: "own-token", challenge: false });
    const bare = await made({});

    expect(await pushedBearer(both.id)).toBe("Bearer own-secret");
    expect(await pushedBearer(withToken.id)).toBe("Bearer env-secret");
    expect(await pushedBearer(bare.id)).toBe("Bearer env-secret");
    expect(recorder.requests.map((r) => r.url)).toEqual(["/webhooks", "/webhooks", "/webhooks"]);

    const facts = [];
    for (const { id } of [both, withToken, bare]) {
      const shown = await api("GET", `sandbox/webhooks/${id}`);
      expect(JSON.stringify(shown.json)).not.toMatch(/own-token|own-secret|env-secret/);
      const { bearer, token } = shown.json.data as { bearer: unknown; token: unknown };
      facts.push({ bearer, token });
    }
    expect(facts).toEqual([
      { bearer: { set: true, from: "secret" }, token: { set: true } },
      { bearer: { set: true, from: "REPORTKIT_SECRET" }, token: { set: true } },
      { bearer: { set: true, from: "REPORTKIT_SECRET" }, token: { set: false } },
    ]);
    // The push log masks the fallback secret like a webhook's own.
    const log = await api("GET", "sandbox/push-attempts");
    expect(JSON.stringify(log.json)).not.toMatch(/own-secret|env-secret/);
  });

  it("without webhookSecret a webhook without a secret is pushed without Authorization, and says so; edit sets a secret", async () => {
    recorder = await startRecorder();
    sandbox = await createSandbox({ token: API_TOKEN });
    const uri = `${recorder.url}/webhooks`;
    const { id } = (
      await api("POST", "developer/webhooks", { name: "t", uri, token: "only-token", challenge: 0 })
    ).json.data as { id: string };
    expect(await pushedBearer(id)).toBeUndefined();
    expect((await api("GET", `sandbox/webhooks/${id}`)).json.data).toMatchObject({
      bearer: { set: false, from: null },
      token: { set: true },
    });
    const edited = await api("PUT", `developer/webhooks/${id}`, { name: "t", uri, secret: "late" });
    expect(edited.status).toBe(200);
    expect(await pushedBearer(id)).toBe("Bearer late");
    expect((await api("GET", `sandbox/webhooks/${id}`)).json.data).toMatchObject({
      bearer: { set: true, from: "secret" },
    });
  });

  it("webhookToken, the option's old name, is still read; giving both is a TypeError", async () => {
    recorder = await startRecorder();
    sandbox = await createSandbox({ token: API_TOKEN, webhookToken: "old-name-secret" });
    const { id } = (
      await api("POST", "developer/webhooks", { name: "t", uri: `${recorder.url}/webhooks` })
    ).json.data as { id: string };
    expect(await pushedBearer(id)).toBe("Bearer old-name-secret");
    await expect(
      createSandbox({ token: API_TOKEN, webhookSecret: "a", webhookToken: "b" }),
    ).rejects.toThrow(
      new TypeError(
        "reportkit sandbox: give `webhookSecret` or `webhookToken` (its old name), not both.",
      ),
    );
    await expect(createSandbox({ token: API_TOKEN, webhookSecret: "two words" })).rejects.toThrow(
      "reportkit sandbox: `webhookSecret` must be a secret (one word, no spaces)",
    );
  });

  it("a composed webhook's pushes carry its secret, not its token", async () => {
    recorder = await startRecorder();
    sandbox = await createSandbox({ token: API_TOKEN });
    const hook = sandbox.createComposedWebhook({
      name: "composed",
      type: "delivery",
      url: `${recorder.url}/composed`,
      body: { ref: "{{id}}", state: "{{status}}" },
      secret: "composed-secret",
      token: "composed-token",
    });
    expect(hook).toMatchObject({ bearer: { set: true, from: "secret" }, token: { set: true } });
    expect(await pushedBearer(hook.id)).toBe("Bearer composed-secret");
    expect(recorder.requests).toHaveLength(1);
  });
});
