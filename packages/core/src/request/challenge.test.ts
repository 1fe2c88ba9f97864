import { describe, expect, it } from "vitest";
import { SAMPLE_DLR_TEXT, TOKEN } from "../../../../test/fixtures/samples.js";
import { createReceiver } from "../receiver/create-receiver.js";
import type { ReceiverOptions } from "../receiver/receiver-options.js";
import type { DeliveryReport } from "../report/schemas.js";
import { memoryDedupe } from "../store-kit/memory-dedupe.js";

function setup(extra: Partial<ReceiverOptions> = {}) {
  const deliveries: DeliveryReport[] = [];
  const errors: string[] = [];
  const receiver = createReceiver({
    token: TOKEN,
    onDelivery: (report) => {
      deliveries.push(report);
    },
    onError: (error) => {
      errors.push(error.code);
    },
    ...extra,
  } as ReceiverOptions);
  return { receiver, deliveries, errors };
}

const get = (url: string) => ({ method: "GET", url, headers: {} });

describe("verification challenge: the default responder", () => {
  it("answers GET ?challenge=…&token=<token> with 200 text/plain, nosniff, the challenge as the body", async () => {
    const { receiver, deliveries } = setup();
    const reply = await receiver.handle(
      get(`/webhooks?challenge=${encodeURIComponent("a b&<c>")}&token=${TOKEN}`),
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toBe("a b&<c>");
    expect(reply.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(reply.headers["x-content-type-options"]).toBe("nosniff");
    expect(deliveries).toHaveLength(0);
  });

  it("answers a wrong or missing token with 401 and says which", async () => {
    const { receiver, errors } = setup();
    const wrong = await receiver.handle(get("/webhooks?challenge=abc&token=nope"));
    const missing = await receiver.handle(get("/webhooks?challenge=abc"));
    expect([wrong.status, missing.status]).toEqual([401, 401]);
    expect(JSON.parse(wrong.body).error.message).toMatch(/not one this receiver accepts/);
    expect(JSON.parse(missing.body).error.message).toMatch(/without a token/);
    expect(wrong.body).not.toContain("abc");
    expect(errors).toEqual(["unauthorized", "unauthorized"]);
    // Every 401 says how to authenticate (RFC 9110, 11.6.1), this one too.
    expect(wrong.headers["www-authenticate"]).toBe(
      'Bearer realm="reportkit", error="invalid_token"',
    );
    expect(missing.headers["www-authenticate"]).toBe('Bearer realm="reportkit"');
  });

  it("accepts any of several tokens, and asks a verifier function", async () => {
    const several = setup({ token: ["old", TOKEN] }).receiver;
    expect((await several.handle(get(`/w?challenge=1&token=old`))).status).toBe(200);
    const asked: string[] = [];
    const verified = setup({
      token: async (t) => {
        asked.push(t);
        return t === "fn-token";
      },
    }).receiver;
    expect((await verified.handle(get("/w?challenge=2&token=fn-token"))).body).toBe("2");
    expect((await verified.handle(get("/w?challenge=2&token=other"))).status).toBe(401);
    expect(asked).toEqual(["fn-token", "other"]);
  });

  it("compares the whole value with a custom header", async () => {
    const { receiver } = setup({ header: "x-api-key", token: "key with space" });
    const reply = await receiver.handle(
      get(`/w?challenge=ok&token=${encodeURIComponent("key with space")}`),
    );
    expect([reply.status, reply.body]).toEqual([200, "ok"]);
  });

  it("leaves a GET without `challenge` to the report path (405 here), and POST reports as before", async () => {
    const { receiver, deliveries } = setup();
    expect((await receiver.handle(get(`/webhooks?token=${TOKEN}`))).status).toBe(405);
    const posted = await receiver.handle({
      method: "POST",
      url: "/webhooks?challenge=x",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: SAMPLE_DLR_TEXT,
    });
    expect(posted.status).toBe(200);
    expect(deliveries).toHaveLength(1);
  });

  it("marks nothing processed: the same report is handled after a challenge", async () => {
    const store = memoryDedupe();
    const { receiver, deliveries } = setup({ dedupe: store });
    await receiver.handle(get(`/webhooks?challenge=x&token=${TOKEN}`));
    const first = await receiver.handle({
      method: "POST",
      url: "/webhooks",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: SAMPLE_DLR_TEXT,
    });
    expect(JSON.parse(first.body)).toEqual({ ok: true });
    expect(deliveries).toHaveLength(1);
  });

  it("`challenge: false` turns it off: the GET is refused as any GET is", async () => {
    const { receiver } = setup({ challenge: false });
    const reply = await receiver.handle(get(`/webhooks?challenge=x&token=${TOKEN}`));
    expect(reply.status).toBe(405);
  });

  it("with `auth: false` echoes the challenge without asking a token", async () => {
    const receiver = createReceiver({ auth: false, onDelivery() {} });
    const reply = await receiver.handle(get("/webhooks?challenge=open"));
    expect([reply.status, reply.body]).toEqual([200, "open"]);
  });

  it("a composed GET template that reads its own `challenge` key takes the GETs as reports", async () => {
    const template = {
      type: "delivery",
      method: "GET",
      url: "/ack?msg={{id}}&challenge={{status}}",
    } as const;
    const seen: string[] = [];
    const receiver = createReceiver({
      token: TOKEN,
      composed: template,
      onDelivery: (report) => {
        seen.push(report.status);
      },
    });
    const reply = await receiver.handle({
      method: "GET",
      url: "/ack?msg=abc:1&challenge=DELIVRD",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(reply.status).toBe(200);
    expect(seen).toEqual(["DELIVRD"]);
  });

  it("a composed GET template without such a key: a GET with `challenge` is the challenge, others reports", async () => {
    const seen: string[] = [];
    const receiver = createReceiver({
      token: TOKEN,
      composed: { type: "delivery", method: "GET", url: "/ack?msg={{id}}&s={{status}}" },
      onDelivery: (report) => {
        seen.push(report.id);
      },
    });
    const challenged = await receiver.handle(get(`/ack?challenge=c1&token=${TOKEN}`));
    expect([challenged.status, challenged.body]).toEqual([200, "c1"]);
    const report = await receiver.handle({
      method: "GET",
      url: "/ack?msg=abc:1&s=DELIVRD",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(report.status).toBe(200);
    expect(seen).toEqual(["abc:1"]);
  });
});

describe("verification challenge: a responder of your own", () => {
  it("replaces the default; undefined lets the request through as a report", async () => {
    const seen: string[] = [];
    const { receiver, deliveries } = setup({
      challenge: (request) => {
        seen.push(request.method);
        return request.method === "POST" && request.url.includes("verify=")
          ? { status: 200, body: "verified", headers: { "content-type": "text/plain" } }
          : undefined;
      },
    });
    const verify = await receiver.handle({ method: "POST", url: "/w?verify=1", headers: {} });
    expect([verify.status, verify.body, verify.headers["content-type"]]).toEqual([
      200,
      "verified",
      "text/plain",
    ]);
    // The default's form is no longer answered.
    expect((await receiver.handle(get(`/w?challenge=x&token=${TOKEN}`))).status).toBe(405);
    const report = await receiver.handle({
      method: "POST",
      url: "/w",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: SAMPLE_DLR_TEXT,
    });
    expect(report.status).toBe(200);
    expect(deliveries).toHaveLength(1);
    expect(seen).toEqual(["POST", "GET", "POST"]);
  });

  it("may answer asynchronously; a throw or a bad status is a 500, never a crash", async () => {
    const later = setup({ challenge: async () => ({ status: 204 }) }).receiver;
    expect(await later.handle(get("/w"))).toMatchObject({ status: 204, body: "" });
    const throwing = setup({
      challenge: () => {
        throw new Error("boom");
      },
    }).receiver;
    expect((await throwing.handle(get("/w"))).status).toBe(500);
    const bad = setup({ challenge: () => ({ status: 42 }) }).receiver;
    expect((await bad.handle(get("/w"))).status).toBe(500);
  });

  it("is checked at factory time", () => {
    expect(() => createReceiver({ token: TOKEN, challenge: true as never })).toThrow(
      /`challenge` must be `false`.*got boolean/,
    );
    expect(() => createReceiver({ token: TOKEN, challenge: "yes" as never })).toThrow(/got string/);
  });
});
