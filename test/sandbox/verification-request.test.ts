// The verification request the sandbox sends a webhook, byte for byte as the provider's page
// shows it (field-notes.md; help/verify-webhook.md), caught by a raw HTTP listener: POST
// <uri>?token=<token>, `Authorization: Bearer <secret>`, `Content-Type: application/json`,
// {"validation_key", "challenge"}; and verified only on a 200 whose JSON holds the same challenge.
import { afterEach, describe, expect, it } from "vitest";
import { VERIFICATION_SAMPLE } from "../fixtures/samples.js";
import {
  type Captured,
  challengeIn,
  echoChallenge,
  pairs,
  Rig,
  TOKEN,
} from "./verification-rig.js";

const rig = new Rig();
afterEach(() => rig.close());

describe("the verification request, as the provider's page shows it", () => {
  it("documented (the default): POST ?token=, Bearer <secret>, JSON content type, the page's body with its trailing comma", async () => {
    const { queryKey, secret, challenge: pageChallenge } = VERIFICATION_SAMPLE;
    const target = await rig.listener(echoChallenge);
    await rig.start();
    const created = await rig.api("POST", "developer/webhooks", {
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
    expect((await rig.api("GET", `sandbox/webhooks/${id}`)).json.data).toMatchObject({
      challenge: { sent: true, passed: true, status_code: 200, reason: null },
    });
  });

  it("complete: strict JSON; the webhook's own query is kept as written, the token URL-encoded", async () => {
    const target = await rig.listener(echoChallenge);
    await rig.start({ payloads: "complete" });
    const token = "a+b&c=d é";
    await rig.api("POST", "developer/webhooks", {
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
    const target = await rig.listener((request) => {
      const answer = answers[n++] as (typeof answers)[number];
      return answer.echo
        ? { ...echoChallenge(request), status: answer.status }
        : { status: answer.status, body: answer.body ?? "" };
    });
    await rig.start();
    const { id } = (
      await rig.api("POST", "developer/webhooks", {
        name: "answers",
        uri: `${target.url}/hook`,
        token: TOKEN,
        challenge: false,
      })
    ).json.data as { id: string };
    for (const answer of answers) {
      const outcome = (await rig.api("POST", `sandbox/webhooks/${id}/challenge`)).json;
      expect(outcome.message).toBe(answer.why === null ? "Challenge passed" : "Challenge failed");
      const { reason, passed } = outcome.data as { reason: string | null; passed: boolean };
      expect(passed).toBe(answer.why === null);
      if (answer.why === null) expect(reason).toBeNull();
      else expect(reason).toMatch(answer.why);
    }
    expect(target.requests).toHaveLength(answers.length);
  });
});
