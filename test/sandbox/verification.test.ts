// The verification request the sandbox sends a webhook, as the provider's page shows it
// (field-notes.md; help/verify-webhook.md): POST <uri>?token=<token>, `Authorization: Bearer
// <secret>`, `Content-Type: application/json`, {"validation_key", "challenge"}; verified only on
// a 200 whose JSON holds the same challenge. Against a raw HTTP listener (the bytes), a real core
// receiver (with its verificationToken, and without one through the secret), and a wrong key.
import http from "node:http";
import { createReceiver, type DeliveryReport } from "@reportkit/core";
import {
  createSandbox,
  formatVerification,
  type Sandbox,
  type VerificationSent,
} from "@reportkit/sandbox";
import { afterEach, describe, expect, it } from "vitest";
import { VERIFICATION_SAMPLE } from "../fixtures/samples.js";
import { listen, type Running, serveReceiver, stop } from "./servers.js";

const API_TOKEN = "verification-api-token";
const SECRET = "hook-secret-2718281828";
const TOKEN = "hook-token-3141592653";

let sandbox: Sandbox | undefined;
const running: Running[] = [];
const verifications: VerificationSent[] = [];

afterEach(async () => {
  await sandbox?.close();
  for (const r of running.splice(0)) await r.close();
  sandbox = undefined;
  verifications.length = 0;
});

async function start(
  options: { payloads?: "documented" | "complete"; webhookSecret?: string } = {},
) {
  sandbox = await createSandbox({
    token: API_TOKEN,
    timeoutMs: 5_000,
    onVerification: (sent) => verifications.push(sent),
    ...options,
  });
  return sandbox;
}

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(new URL(path, sandbox?.baseUrl), {
    method,
    headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

interface Captured {
  method: string;
  url: string;
  rawHeaders: string[];
  body: string;
}

/**
 * A raw listener: keeps each request as it came (method, URL, header lines, body bytes) and
 * answers with `reply(request)`: status, content type and body.
 */
async function listener(
  reply: (request: Captured) => { status: number; type?: string; body: string },
): Promise<Running & { requests: Captured[] }> {
  const requests: Captured[] = [];
  const server = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const captured = {
      method: req.method ?? "",
      url: req.url ?? "",
      rawHeaders: req.rawHeaders,
      body,
    };
    requests.push(captured);
    const answer = reply(captured);
    res.writeHead(answer.status, { "content-type": answer.type ?? "text/plain" }).end(answer.body);
  });
  const url = await listen(server);
  const handle = { url, requests, close: () => stop(server) };
  running.push(handle);
  return handle;
}

/** The challenge a verification body carries, its trailing comma allowed. */
function challengeIn(body: string): string {
  return (JSON.parse(body.replace(/,\s*}$/, "}")) as { challenge: string }).challenge;
}

const echoChallenge = (request: Captured) => ({
  status: 200,
  type: "application/json",
  body: JSON.stringify({ challenge: challengeIn(request.body) }),
});

describe("the verification request, as the provider's page shows it", () => {
  it("documented (the default): POST ?token=, Bearer <secret>, JSON content type, the page's body with its trailing comma", async () => {
    const { queryKey, secret, challenge: pageChallenge } = VERIFICATION_SAMPLE;
    const target = await listener(echoChallenge);
    await start();
    const created = await api("POST", "developer/webhooks", {
      name: "page",
      uri: `${target.url}/receive/callback`,
      secret,
      token: queryKey,
    });
    expect(created.status).toBe(200);
    // Sent before the create answered: the provider verifies a webhook as it is created.
    expect(target.requests).toHaveLength(1);
    const [request] = target.requests as [Captured];
    expect(request.method).toBe("POST");
    expect(request.url).toBe(`/receive/callback?token=${queryKey}`);
    const headers = pairs(request.rawHeaders);
    expect(headers.map(([name]) => name.toLowerCase()).sort()).toEqual([
      "authorization",
      "connection",
      "content-length",
      "content-type",
      "host",
      "user-agent",
    ]);
    const header = (name: string) => headers.find(([n]) => n.toLowerCase() === name)?.[1];
    expect(header("authorization")).toBe(`Bearer ${secret}`);
    expect(header("content-type")).toBe("application/json");
    expect(header("content-length")).toBe(String(Buffer.byteLength(request.body)));
    // The page's body, whitespace aside, with this webhook's key and this challenge: the
    // validation key, then the challenge, then a trailing comma.
    const challenge = challengeIn(request.body);
    expect(challenge).toMatch(/^[0-9a-f]{24}$/);
    const page = VERIFICATION_SAMPLE.body
      .replace(VERIFICATION_SAMPLE.bodyKey, queryKey)
      .replace(pageChallenge, challenge);
    expect(request.body.replace(/\s+/g, "")).toBe(page.replace(/\s+/g, ""));
    expect(request.body).toBe(
      `{\n    "validation_key": "${queryKey}",\n    "challenge": "${challenge}",\n}`,
    );
    // Answered 200 {"challenge"}: verified.
    const { id } = created.json.data as { id: string };
    expect((await api("GET", `sandbox/webhooks/${id}`)).json.data).toMatchObject({
      challenge: { sent: true, passed: true, status_code: 200, reason: null },
    });
  });

  it("complete: strict JSON; the webhook's own query is kept as written, the token URL-encoded", async () => {
    const target = await listener(echoChallenge);
    await start({ payloads: "complete" });
    const token = "a+b&c=d é";
    await api("POST", "developer/webhooks", {
      name: "query",
      uri: `${target.url}/cb?source=provider%20one#fragment`,
      token,
    });
    const [request] = target.requests as [Captured];
    expect(request.url).toBe(`/cb?source=provider%20one&token=${encodeURIComponent(token)}`);
    expect(new URL(request.url, "http://x").searchParams.get("token")).toBe(token);
    expect(JSON.parse(request.body)).toEqual({
      validation_key: token,
      challenge: challengeIn(request.body),
    });
    expect(Object.keys(JSON.parse(request.body))).toEqual(["validation_key", "challenge"]);
    // No secret and no webhookSecret: no Authorization, as with the pushes.
    expect(pairs(request.rawHeaders).map(([n]) => n.toLowerCase())).not.toContain("authorization");
  });

  it("is verified only on a 200 whose JSON holds the same challenge", async () => {
    const answers = [
      {
        status: 200,
        body: "",
        why: /^answered 200 but not with \{"challenge": "<the challenge sent>"\} in JSON \(an empty body\)$/,
      },
      {
        status: 200,
        body: '{"challenge":"another"}',
        why: /^answered 200 but not with .* \(got: \{"challenge":"another"\}\)$/,
      },
      { status: 200, body: "the-challenge-as-text", why: /^answered 200 but not with/ },
      { status: 202, echo: true, why: /^answered 202: \{"challenge":"[0-9a-f]{24}"\}$/ },
      {
        status: 404,
        body: "Not Found",
        why: /^answered 404 \(nothing answers a POST on that path\): Not Found$/,
      },
      { status: 200, echo: true, why: null },
    ];
    let n = 0;
    const target = await listener((request) => {
      const answer = answers[n++] as (typeof answers)[number];
      return answer.echo
        ? { ...echoChallenge(request), status: answer.status }
        : { status: answer.status, body: answer.body ?? "" };
    });
    await start();
    const { id } = (
      await api("POST", "developer/webhooks", {
        name: "answers",
        uri: `${target.url}/hook`,
        token: TOKEN,
        challenge: false,
      })
    ).json.data as { id: string };
    for (const answer of answers) {
      const outcome = (await api("POST", `sandbox/webhooks/${id}/challenge`)).json;
      expect(outcome.message).toBe(answer.why === null ? "Challenge passed" : "Challenge failed");
      const { reason, passed } = outcome.data as { reason: string | null; passed: boolean };
      expect(passed).toBe(answer.why === null);
      if (answer.why === null) expect(reason).toBeNull();
      else expect(reason).toMatch(answer.why);
    }
    expect(target.requests).toHaveLength(answers.length);
  });
});

describe("a real core receiver verified through the sandbox", () => {
  it.each(["documented", "complete"] as const)(
    "with verificationToken (%s payloads): verified, then the first push is answered 200",
    async (payloads) => {
      const deliveries: DeliveryReport[] = [];
      const receiver = createReceiver({
        secret: SECRET,
        verificationToken: TOKEN,
        logger: false,
        onDelivery: (report) => {
          deliveries.push(report);
        },
      });
      const app = await serveReceiver(receiver);
      running.push(app);
      await start({ payloads });
      const created = await api("POST", "developer/webhooks", {
        name: "core",
        uri: `${app.url}/webhooks`,
        secret: SECRET,
        token: TOKEN,
        challenge: true,
      });
      expect(created.json.challenge).toMatchObject({
        sent: true,
        passed: true,
        status_code: 200,
        reason: null,
        url: `${app.url}/webhooks?token=********`,
      });
      const { id } = created.json.data as { id: string };
      const sms = sandbox?.sendSms({ webhookId: id });
      expect(await sms?.outcome).toBe("delivered");
      expect(sandbox?.attempts().map((a) => [a.attempt, a.statusCode])).toEqual([[1, 200]]);
      expect(deliveries.map((d) => d.id)).toEqual([sms?.report.id]);
    },
  );

  it("without verificationToken: verified by the secret it carries (the webhook's, else webhookSecret)", async () => {
    const app = await serveReceiver(
      createReceiver({ secret: SECRET, logger: false, onDelivery() {} }),
    );
    running.push(app);
    await start({ webhookSecret: SECRET });
    const own = await api("POST", "developer/webhooks", {
      name: "own secret",
      uri: `${app.url}/webhooks`,
      secret: SECRET,
      token: "any-token-will-do",
      challenge: true,
    });
    expect(own.json.challenge).toMatchObject({ passed: true, status_code: 200 });
    const fallback = await api("POST", "developer/webhooks", {
      name: "sandbox's secret",
      uri: `${app.url}/webhooks`,
      token: "any-token-will-do",
      challenge: true,
    });
    expect(fallback.json.challenge).toMatchObject({ passed: true, status_code: 200 });
  });

  it("a wrong key (or no secret the receiver knows) is not verified, and says why", async () => {
    const app = await serveReceiver(
      createReceiver({
        secret: SECRET,
        verificationToken: "the-receivers-token",
        logger: false,
        onDelivery() {},
      }),
    );
    const bare = await serveReceiver(
      createReceiver({ secret: SECRET, logger: false, onDelivery() {} }),
    );
    running.push(app, bare);
    await start();
    const wrong = await api("POST", "developer/webhooks", {
      name: "wrong key",
      uri: `${app.url}/webhooks`,
      secret: SECRET,
      token: TOKEN,
      challenge: true,
    });
    const outcome = wrong.json.challenge as {
      passed: boolean;
      status_code: number;
      reason: string;
    };
    expect(outcome).toMatchObject({ sent: true, passed: false, status_code: 401 });
    expect(outcome.reason).toMatch(
      /^answered 401 \(the receiver refused the validation key: its REPORTKIT_VERIFICATION_TOKEN is not this webhook's token, or, without one, its REPORTKIT_SECRET is not the bearer sent, the webhook's secret\): /,
    );
    const { id } = wrong.json.data as { id: string };
    expect((await api("GET", `sandbox/webhooks/${id}`)).json.data).toMatchObject({
      challenge: { passed: false, status_code: 401 },
    });
    // A receiver without verificationToken, and a webhook without a secret: nothing vouches.
    const unvouched = await api("POST", "developer/webhooks", {
      name: "no secret",
      uri: `${bare.url}/webhooks`,
      token: TOKEN,
      challenge: true,
    });
    expect(unvouched.json.challenge).toMatchObject({ passed: false, status_code: 401 });
  });
});

describe("when the sandbox sends it", () => {
  it("on create with a token (the reply as documented), with challenge: true (in the reply), never with challenge: false, nor on an edit", async () => {
    const target = await listener(echoChallenge);
    await start();
    const uri = `${target.url}/hook`;
    const plain = await api("POST", "developer/webhooks", { name: "a", uri, token: TOKEN });
    expect(plain.json).not.toHaveProperty("challenge");
    expect(target.requests).toHaveLength(1);
    const quiet = await api("POST", "developer/webhooks", {
      name: "b",
      uri,
      token: TOKEN,
      challenge: false,
    });
    const noToken = await api("POST", "developer/webhooks", { name: "c", uri, secret: SECRET });
    expect(target.requests).toHaveLength(1);
    const { id } = quiet.json.data as { id: string };
    expect((await api("GET", `sandbox/webhooks/${id}`)).json.data).toMatchObject({
      challenge: null,
    });
    await api("PUT", `developer/webhooks/${id}`, { name: "b", uri, token: "new-token" });
    expect(target.requests).toHaveLength(1);
    // Asked without a token: the reply says why none was sent.
    const asked = await api("POST", "developer/webhooks", { name: "d", uri, challenge: true });
    expect(asked.json.challenge).toMatchObject({
      sent: false,
      passed: false,
      url: null,
      reason:
        "the webhook has no token, the validation key the verification carries (give one with --token, or `token` on create or edit)",
    });
    expect(target.requests).toHaveLength(1);
    expect(noToken.json).not.toHaveProperty("challenge");
    const bad = await api("POST", "developer/webhooks", { name: "e", uri, challenge: "maybe" });
    expect(bad).toMatchObject({
      status: 422,
      json: { errors: { challenge: [expect.any(String)] } },
    });
    // A composed webhook's URL is a template: not verified.
    const composed = sandbox?.createComposedWebhook({
      name: "composed",
      type: "delivery",
      url: `${target.url}/c?id={{id}}&s={{status}}`,
      method: "GET",
      token: TOKEN,
    });
    const tried = await api("POST", `sandbox/webhooks/${composed?.id}/challenge`);
    expect(tried.json.data).toMatchObject({
      sent: false,
      reason: expect.stringMatching(/^a composed webhook's URL is a template/),
    });
    expect(target.requests).toHaveLength(1);
  });

  it("shows no secret or token: not in the replies, the outcome, onVerification, nor its log line", async () => {
    // A receiver that refuses, echoing the whole request (URL, Authorization, body) in its reply.
    const target = await listener((request) => ({
      status: 401,
      body: `refused ${request.url} ${pairs(request.rawHeaders).flat().join(" ")} ${request.body}`,
    }));
    await start();
    const created = await api("POST", "developer/webhooks", {
      name: "echo",
      uri: `${target.url}/hook`,
      secret: SECRET,
      token: TOKEN,
      challenge: true,
    });
    const { id } = created.json.data as { id: string };
    const again = await api("POST", `sandbox/webhooks/${id}/challenge`);
    const shown = await api("GET", `sandbox/webhooks/${id}`);
    const listed = await api("GET", "developer/webhooks");
    // The receiver did get both, and echoed them.
    expect(target.requests[0]?.url).toContain(TOKEN);
    expect((created.json.challenge as { reason: string }).reason).toMatch(
      /refused \/hook\?token=\*{8} /,
    );
    expect(verifications).toHaveLength(2);
    const lines = verifications.map(formatVerification);
    expect(lines[0]).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d verification ${id} → POST http://127\\.0\\.0\\.1:\\d+/hook\\?token=\\*{8}  401  not verified: answered 401 `,
      ),
    );
    const everything = JSON.stringify([created, again, shown, listed, verifications, lines]);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(TOKEN);
  });
});

/** Node's rawHeaders, as [name, value] pairs. */
function pairs(raw: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) out.push([raw[i] as string, raw[i + 1] as string]);
  return out;
}
