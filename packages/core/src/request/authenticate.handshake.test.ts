// The webhook's verification handshake, as the provider's page shows it: a POST of
// {"validation_key", "challenge"} with the key as the `token` query parameter and the secret as
// the bearer, answered 200 {"challenge"}.

import type { ComposedTemplate } from "@reportkit/wire";
import { describe, expect, it } from "vitest";
import { SAMPLE_DLR_TEXT, TOKEN, VERIFICATION_SAMPLE } from "../../../../test/fixtures/samples.js";
import type { ReceiverRequest } from "../base/types.js";
import { adapterReceiver } from "../receiver/adapter-receiver.js";
import { createReceiver } from "../receiver/create-receiver.js";
import type { ReceiverOptions } from "../receiver/options.js";
import type { JournalRecord } from "../store-kit/dedupe-store.js";
import type { Telemetry } from "../store-kit/telemetry.js";

const V = VERIFICATION_SAMPLE;

function verification(
  overrides: { url?: string; body?: string; bearer?: string | null } = {},
): ReceiverRequest {
  const { url = V.url, body = V.body, bearer = V.secret } = overrides;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
  return { method: "POST", url, headers, body };
}

function setup(extra: Partial<ReceiverOptions<ComposedTemplate | undefined>> = {}) {
  const handled: string[] = [];
  const kept: JournalRecord[] = [];
  const counted: string[] = [];
  const telemetry: Telemetry = {
    startReport: () => {
      counted.push("report");
      return { run: (fn) => fn(), handlerDuration() {}, end() {}, carrier: () => ({}) };
    },
    refused: (code) => void counted.push(`refused ${code}`),
    verification: (outcome) => void counted.push(`verification ${outcome}`),
  };
  const receiver = createReceiver({
    secret: V.secret,
    logger: false,
    telemetry,
    journal: { record: async (entry) => void kept.push(entry) },
    onDelivery: (report) => void handled.push(report.id),
    ...extra,
  } as ReceiverOptions<ComposedTemplate | undefined>);
  return { receiver, handled, kept, counted };
}

const answer = JSON.stringify({ challenge: V.challenge });

describe("the verification handshake, by default", () => {
  it("answers the provider's sample byte for byte (trailing comma and all): 200 JSON with the challenge", async () => {
    const { receiver, handled, kept, counted } = setup({ verification: { token: V.queryKey } });
    const reply = await receiver.handle(verification());
    expect([reply.status, reply.headers["content-type"], reply.body]).toEqual([
      200,
      "application/json",
      answer,
    ]);
    // The echoed challenge is never sniffed as HTML by a browser (issue 42, review).
    expect(reply.headers["x-content-type-options"]).toBe("nosniff");
    // Never a report: no handler, nothing journaled, counted as a verification.
    expect([handled, kept, counted]).toEqual([[], [], ["verification answered"]]);
  });

  it("answers it as valid JSON too, and with the key in the body alone or in the query alone", async () => {
    const { receiver } = setup({ verification: { token: V.bodyKey } });
    const valid = JSON.stringify({ validation_key: V.bodyKey, challenge: "c1" });
    for (const request of [
      verification({ body: valid }),
      verification({ body: valid, url: "/webhooks" }),
      verification({
        url: `/webhooks?token=${V.bodyKey}`,
        body: JSON.stringify({ challenge: "c1" }),
      }),
    ]) {
      const reply = await receiver.handle(request);
      expect([reply.status, reply.body]).toEqual([200, '{"challenge":"c1"}']);
    }
  });

  it("with a verificationToken: the key decides, with or without a secret", async () => {
    const { receiver } = setup({ verification: { token: V.queryKey } });
    for (const bearer of [null, "wrong-secret"]) {
      expect((await receiver.handle(verification({ bearer }))).status).toBe(200);
    }
  });

  it("a wrong key: 401 with WWW-Authenticate, the challenge not echoed, counted as a verification refused", async () => {
    const { receiver, counted } = setup({ verification: { token: "another-key" } });
    for (const bearer of [V.secret, null]) {
      const reply = await receiver.handle(verification({ bearer }));
      expect(reply.status).toBe(401);
      expect(reply.headers["www-authenticate"]).toBe(
        'Bearer realm="reportkit", error="invalid_token"',
      );
      expect(reply.body).not.toContain(V.challenge);
      // The option as it is named now (it was `verificationToken`).
      expect(JSON.parse(reply.body).error.message).toBe(
        "The verification request's validation key (its `token` query parameter or `validation_key`) is not this receiver's `verification.token`.",
      );
    }
    expect(counted).toEqual(["verification refused", "verification refused"]);
  });

  it("without a verificationToken: answered when it carries one of the receiver's secrets, else 401", async () => {
    const { receiver, counted } = setup({ secret: ["old-secret", V.secret] });
    expect((await receiver.handle(verification())).status).toBe(200);
    for (const bearer of [null, "wrong-secret"]) {
      const reply = await receiver.handle(verification({ bearer }));
      expect(reply.status).toBe(401);
      expect(reply.headers["www-authenticate"]).toMatch(/^Bearer realm="reportkit"/);
      expect(reply.body).not.toContain(V.challenge);
    }
    // The 401s before any body was read are plain refusals: the receiver could not tell.
    expect(counted).toEqual([
      "verification answered",
      "refused unauthorized",
      "refused unauthorized",
    ]);
  });

  it("marks nothing processed: the reports that follow are handled as ever", async () => {
    const { receiver, handled } = setup({ verification: { token: V.queryKey } });
    await receiver.handle(verification());
    const report = await receiver.handle({
      method: "POST",
      url: "/webhooks",
      headers: { authorization: `Bearer ${V.secret}`, "content-type": "application/json" },
      body: SAMPLE_DLR_TEXT,
    });
    expect(report.status).toBe(200);
    expect(handled).toHaveLength(1);
  });

  it("a body without a secret that is no verification is the 401 it would have been, never read as a report", async () => {
    const { receiver, handled, kept } = setup({ verification: { token: V.queryKey } });
    const reply = await receiver.handle({
      ...verification({ bearer: null }),
      body: SAMPLE_DLR_TEXT,
    });
    expect(reply.status).toBe(401);
    const garbage = await receiver.handle({ ...verification({ bearer: null }), body: "{not json" });
    expect(garbage.status).toBe(401);
    expect([handled, kept]).toEqual([[], []]);
  });

  it("a body without a secret too large or too slow keeps its own reply, which closes the connection", async () => {
    const { receiver } = setup({ verification: { token: V.queryKey }, body: { maxBytes: 100 } });
    const big = await receiver.handle({
      ...verification({ bearer: null }),
      body: JSON.stringify({ challenge: "x".repeat(200), validation_key: V.queryKey }),
    });
    expect([big.status, big.headers.connection]).toEqual([413, "close"]);
  });

  it("the old GET ?challenge= form is gone: a GET is 405 like any other method", async () => {
    const { receiver } = setup({ verification: { token: V.queryKey } });
    const reply = await receiver.handle({
      method: "GET",
      url: `/webhooks?challenge=abc&token=${V.queryKey}`,
      headers: { authorization: `Bearer ${V.secret}` },
    });
    expect([reply.status, reply.headers.allow]).toEqual([405, "POST"]);
  });

  it("with `secret: false`: answered without a secret, and without a verificationToken", async () => {
    const { receiver } = setup({ secret: false });
    expect((await receiver.handle(verification({ bearer: null }))).body).toBe(answer);
  });

  it("a composed GET template's receiver answers the POST handshake too", async () => {
    const { receiver } = setup({
      verification: { token: V.queryKey },
      composed: {
        type: "delivery",
        method: "GET",
        url: "https://x.example/hook?id={{id}}&s={{status}}",
      },
    });
    expect((await receiver.handle(verification())).body).toBe(answer);
    const other = await receiver.handle({ ...verification(), body: "{}" });
    expect(other.status).toBe(405);
  });

  it("`verification: false` turns it off: the body is then read as a report", async () => {
    const { receiver } = setup({ verification: false });
    const reply = await receiver.handle(verification());
    expect([reply.status, JSON.parse(reply.body).error.code]).toEqual([400, "unrecognized_report"]);
  });

  it("reads the verification token from each request's environment where the adapter says so", async () => {
    const receiver = adapterReceiver(
      { logger: false, onDelivery: () => {} },
      { env: undefined, requestEnv: { whereToSet: "in the Worker's environment" } },
    );
    const env = { REPORTKIT_SECRET: V.secret, REPORTKIT_VERIFICATION_TOKEN: V.queryKey };
    expect((await receiver.handle({ ...verification({ bearer: null }), env })).status).toBe(200);
    const other = { ...env, REPORTKIT_VERIFICATION_TOKEN: "another" };
    expect((await receiver.handle({ ...verification({ bearer: null }), env: other })).status).toBe(
      401,
    );
  });
});

describe("a challenge responder of your own", () => {
  it("gets the decoded body and whether a secret came; undefined lets a report through", async () => {
    const seen: unknown[] = [];
    const { receiver, handled } = setup({
      verification: {
        respond: (request) => {
          seen.push([request.method, request.authenticated, request.body]);
          const body = request.body as { hello?: string };
          return body.hello === undefined ? undefined : { status: 200, body: `hi ${body.hello}` };
        },
      },
    });
    const hello = await receiver.handle(verification({ body: '{"hello": "there",}' }));
    expect([hello.status, hello.body]).toEqual([200, "hi there"]);
    const report = await receiver.handle(verification({ body: SAMPLE_DLR_TEXT }));
    expect(report.status).toBe(200);
    expect(handled).toHaveLength(1);
    expect(seen[0]).toEqual(["POST", true, { hello: "there" }]);
  });

  it("never sees a request without a credential: its 401 comes before its body is read (issue 42, 5)", async () => {
    const seen: unknown[] = [];
    const respond = async (request: { authenticated: boolean }) => {
      seen.push(request.authenticated);
      // A responder that rejects on junk: only ever for a sender holding a credential.
      throw new Error("not a verification I know");
    };
    const { receiver } = setup({ verification: { respond } });
    for (let i = 0; i < 3; i++) {
      expect((await receiver.handle(verification({ bearer: null }))).status).toBe(401);
    }
    expect(seen).toEqual([]);
    // With the verification token, a request carrying it as ?token= reaches the responder.
    const withToken = setup({
      verification: { token: V.queryKey, respond: () => ({ status: 200, body: "known" }) },
    });
    expect((await withToken.receiver.handle(verification({ bearer: null }))).body).toBe("known");
  });

  it("a throw or a bad status is a 500, never a crash", async () => {
    for (const respond of [
      () => {
        throw new Error("boom");
      },
      () => Promise.reject(new Error("boom")),
      () => ({ status: 42 }),
    ]) {
      const reply = await setup({ verification: { respond } }).receiver.handle(verification());
      expect(reply.status).toBe(500);
    }
  });
});

describe("the credential's names", () => {
  it("refuses the old names with their fix: `token`, `verificationToken`, `challenge`", () => {
    expect(() => createReceiver({ token: TOKEN } as never)).toThrow(
      /`token` was renamed: pass `secret`/,
    );
    expect(() => createReceiver({ secret: TOKEN, verificationToken: "k" } as never)).toThrow(
      /`verificationToken` was renamed: pass `verification: \{ token \}`/,
    );
    expect(() => createReceiver({ secret: TOKEN, challenge: false } as never)).toThrow(
      /`challenge` was renamed: pass `verification: \{ respond \}`, or `verification: false`/,
    );
  });

  it("reads REPORTKIT_SECRET (and no longer REPORTKIT_TOKEN, its old name)", async () => {
    const receiver = adapterReceiver(
      { logger: false, onDelivery: () => {} },
      { env: { REPORTKIT_SECRET: TOKEN } },
    );
    const reply = await receiver.handle({
      method: "POST",
      url: "/webhooks",
      headers: { authorization: `Bearer ${TOKEN}` },
      body: SAMPLE_DLR_TEXT,
    });
    expect(reply.status).toBe(200);
    expect(() =>
      adapterReceiver({ onDelivery: () => {} }, { env: { REPORTKIT_TOKEN: TOKEN } }),
    ).toThrow(/no secret given/);
  });
});
