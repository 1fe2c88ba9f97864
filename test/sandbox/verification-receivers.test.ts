// The verification request through the sandbox to a real core receiver (with its
// verificationToken, and without one through the secret it carries), a wrong key (not verified,
// and why), when the sandbox sends it, and that no secret or token is shown anywhere.
import { createReceiver, type DeliveryReport } from "@reportkit/core";
import { formatVerification } from "@reportkit/sandbox";
import { afterEach, describe, expect, it } from "vitest";
import { serveReceiver } from "./servers.js";
import { echoChallenge, pairs, Rig, SECRET, TOKEN } from "./verification-rig.js";

const rig = new Rig();
afterEach(() => rig.close());

describe("a real core receiver verified through the sandbox", () => {
  it.each(["documented", "complete"] as const)(
    "with verificationToken (%s payloads): verified, then the first push is answered 200",
    async (payloads) => {
      const deliveries: DeliveryReport[] = [];
      const receiver = createReceiver({
        secret: SECRET,
        verification: { token: TOKEN },
        logger: false,
        onDelivery: (report) => {
          deliveries.push(report);
        },
      });
      const app = await serveReceiver(receiver);
      rig.running.push(app);
      await rig.start({ payloads });
      const created = await rig.api("POST", "developer/webhooks", {
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
      const sms = rig.sandbox?.sendSms({ webhookId: id });
      expect(await sms?.outcome).toBe("delivered");
      expect(rig.sandbox?.attempts().map((a) => [a.attempt, a.statusCode])).toEqual([[1, 200]]);
      expect(deliveries.map((d) => d.id)).toEqual([sms?.report.id]);
    },
  );

  it("without verificationToken: verified by the secret it carries (the webhook's, else webhookSecret)", async () => {
    const app = await serveReceiver(
      createReceiver({ secret: SECRET, logger: false, onDelivery() {} }),
    );
    rig.running.push(app);
    await rig.start({ webhookSecret: SECRET });
    const own = await rig.api("POST", "developer/webhooks", {
      name: "own secret",
      uri: `${app.url}/webhooks`,
      secret: SECRET,
      token: "any-token-will-do",
      challenge: true,
    });
    expect(own.json.challenge).toMatchObject({ passed: true, status_code: 200 });
    const fallback = await rig.api("POST", "developer/webhooks", {
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
        verification: { token: "the-receivers-token" },
        logger: false,
        onDelivery() {},
      }),
    );
    const bare = await serveReceiver(
      createReceiver({ secret: SECRET, logger: false, onDelivery() {} }),
    );
    rig.running.push(app, bare);
    await rig.start();
    const wrong = await rig.api("POST", "developer/webhooks", {
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
    expect((await rig.api("GET", `sandbox/webhooks/${id}`)).json.data).toMatchObject({
      challenge: { passed: false, status_code: 401 },
    });
    // A receiver without verificationToken, and a webhook without a secret: nothing vouches.
    const unvouched = await rig.api("POST", "developer/webhooks", {
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
    const target = await rig.listener(echoChallenge);
    await rig.start();
    const uri = `${target.url}/hook`;
    const plain = await rig.api("POST", "developer/webhooks", { name: "a", uri, token: TOKEN });
    expect(plain.json).not.toHaveProperty("challenge");
    expect(target.requests).toHaveLength(1);
    const quiet = await rig.api("POST", "developer/webhooks", {
      name: "b",
      uri,
      token: TOKEN,
      challenge: false,
    });
    const noToken = await rig.api("POST", "developer/webhooks", { name: "c", uri, secret: SECRET });
    expect(target.requests).toHaveLength(1);
    const { id } = quiet.json.data as { id: string };
    expect((await rig.api("GET", `sandbox/webhooks/${id}`)).json.data).toMatchObject({
      challenge: null,
    });
    await rig.api("PUT", `developer/webhooks/${id}`, { name: "b", uri, token: "new-token" });
    expect(target.requests).toHaveLength(1);
    // Asked without a token: the reply says why none was sent.
    const asked = await rig.api("POST", "developer/webhooks", { name: "d", uri, challenge: true });
    expect(asked.json.challenge).toMatchObject({
      sent: false,
      passed: false,
      url: null,
      reason:
        "the webhook has no token, the validation key the verification carries (give one with --token, or `token` on create or edit)",
    });
    expect(target.requests).toHaveLength(1);
    expect(noToken.json).not.toHaveProperty("challenge");
    const bad = await rig.api("POST", "developer/webhooks", { name: "e", uri, challenge: "maybe" });
    expect(bad).toMatchObject({
      status: 422,
      json: { errors: { challenge: [expect.any(String)] } },
    });
    // A composed webhook's URL is a template: not verified.
    const composed = rig.sandbox?.createComposedWebhook({
      name: "composed",
      type: "delivery",
      url: `${target.url}/c?id={{id}}&s={{status}}`,
      method: "GET",
      token: TOKEN,
    });
    const tried = await rig.api("POST", `sandbox/webhooks/${composed?.id}/challenge`);
    expect(tried.json.data).toMatchObject({
      sent: false,
      reason: expect.stringMatching(/^a composed webhook's URL is a template/),
    });
    expect(target.requests).toHaveLength(1);
  });

  it("shows no secret or token: not in the replies, the outcome, onVerification, nor its log line", async () => {
    // A receiver that refuses, echoing the whole request (URL, Authorization, body) in its reply.
    const target = await rig.listener((request) => ({
      status: 401,
      body: `refused ${request.url} ${pairs(request.rawHeaders).flat().join(" ")} ${request.body}`,
    }));
    await rig.start();
    const created = await rig.api("POST", "developer/webhooks", {
      name: "echo",
      uri: `${target.url}/hook`,
      secret: SECRET,
      token: TOKEN,
      challenge: true,
    });
    const { id } = created.json.data as { id: string };
    const again = await rig.api("POST", `sandbox/webhooks/${id}/challenge`);
    const shown = await rig.api("GET", `sandbox/webhooks/${id}`);
    const listed = await rig.api("GET", "developer/webhooks");
    // The receiver did get both, and echoed them.
    expect(target.requests[0]?.url).toContain(TOKEN);
    expect((created.json.challenge as { reason: string }).reason).toMatch(
      /refused \/hook\?token=\*{8} /,
    );
    expect(rig.verifications).toHaveLength(2);
    const lines = rig.verifications.map(formatVerification);
    expect(lines[0]).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d verification ${id} → POST http://127\\.0\\.0\\.1:\\d+/hook\\?token=\\*{8}  401  not verified: answered 401 `,
      ),
    );
    const everything = JSON.stringify([created, again, shown, listed, rig.verifications, lines]);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(TOKEN);
  });
});
