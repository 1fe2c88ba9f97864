import type { DeliveryReport } from "@reportkit/core";
import { webhookReceiver } from "@reportkit/lambda";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SAMPLE_CALL_TEXT, SAMPLE_DLR_TEXT, TOKEN } from "../fixtures/samples.js";
import { functionUrlEvent, httpApiEvent, restApiEvent } from "./lambda-events.js";

const JSON_HEADERS = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };

const EVENTS = [
  ["API Gateway HTTP API (payload 2.0)", httpApiEvent],
  ["API Gateway REST API (payload 1.0)", restApiEvent],
  ["Lambda function URL", functionUrlEvent],
] as const;

describe.each(EVENTS)("@reportkit/lambda: %s", (_name, eventOf) => {
  it("a DLR in a base64 body: 200 and the typed report", async () => {
    const reports: DeliveryReport[] = [];
    const handler = webhookReceiver({ secret: TOKEN, onDelivery: (r) => void reports.push(r) });
    const result = await handler(
      eventOf({ headers: JSON_HEADERS, body: SAMPLE_DLR_TEXT, base64: true }),
    );
    expect(result).toEqual({
      statusCode: 200,
      headers: { "content-type": "application/json" },
      body: '{"ok":true}',
      isBase64Encoded: false,
    });
    expect(reports).toHaveLength(1);
    expect(reports[0]?.id).toBe("b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1");
    expect(reports[0]?.deliveredAt).toEqual(new Date("2021-04-09T10:57:51.000Z"));
  });

  it("a call report in a text body: 200, handler attached after", async () => {
    const onCall = vi.fn();
    const handler = webhookReceiver({ secret: TOKEN }).onCall(onCall);
    const result = await handler(eventOf({ headers: JSON_HEADERS, body: SAMPLE_CALL_TEXT }));
    expect(result.statusCode).toBe(200);
    expect(onCall).toHaveBeenCalledTimes(1);
    expect(onCall.mock.calls[0]?.[0]).toMatchObject({
      type: "call",
      duration: 23,
      to: "919876543210",
    });
  });

  it("a wrong secret: 401 with the challenge, the handler not run", async () => {
    const onDelivery = vi.fn();
    const handler = webhookReceiver({ secret: TOKEN, onDelivery });
    const result = await handler(
      eventOf({
        headers: { ...JSON_HEADERS, Authorization: "Bearer wrong" },
        body: SAMPLE_DLR_TEXT,
      }),
    );
    expect(result.statusCode).toBe(401);
    expect(result.headers["www-authenticate"]).toBe(
      'Bearer realm="reportkit", error="invalid_token"',
    );
    expect(JSON.parse(result.body).error.code).toBe("unauthorized");
    expect(onDelivery).not.toHaveBeenCalled();
  });

  it("a GET: 405 with Allow, as core answers it", async () => {
    const handler = webhookReceiver({ secret: TOKEN, onDelivery: vi.fn() });
    const result = await handler(
      eventOf({ method: "GET", headers: { Authorization: `Bearer ${TOKEN}` } }),
    );
    expect(result.statusCode).toBe(405);
    expect(result.headers.allow).toBe("POST");
  });

  it("a form in a base64 body with a query string: the composed template reads both", async () => {
    const onDelivery = vi.fn();
    const handler = webhookReceiver({
      secret: TOKEN,
      composed: {
        type: "delivery",
        method: "POST",
        url: "https://example.com/webhooks?id={{id}}",
        body: { s: "{{status}}" },
        format: "form",
      },
      onDelivery,
    });
    const result = await handler(
      eventOf({
        query: { id: ["abc:1"] },
        headers: { ...JSON_HEADERS, "Content-Type": "application/x-www-form-urlencoded" },
        body: "s=DELIVRD",
        base64: true,
      }),
    );
    expect(result.statusCode, result.body).toBe(200);
    expect(onDelivery.mock.calls[0]?.[0]).toMatchObject({ id: "abc:1", status: "DELIVRD" });
  });
});

describe("@reportkit/lambda: the token and the event", () => {
  it("reads REPORTKIT_SECRET from the environment when no token is given", async () => {
    vi.stubEnv("REPORTKIT_SECRET", TOKEN);
    try {
      const handler = webhookReceiver().onDelivery(() => {});
      const result = await handler(httpApiEvent({ headers: JSON_HEADERS, body: SAMPLE_DLR_TEXT }));
      expect(result.statusCode).toBe(200);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("without a token anywhere, fails at the cold start and says how to fix it", () => {
    vi.stubEnv("REPORTKIT_SECRET", "");
    try {
      expect(() => webhookReceiver()).toThrow(/no secret given.*REPORTKIT_SECRET/);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("an event that is no HTTP request is an error naming what it has", async () => {
    const handler = webhookReceiver({ secret: TOKEN, onDelivery: vi.fn() });
    await expect(handler({ Records: [] } as never)).rejects.toThrow(
      /not an HTTP request \(API Gateway REST or HTTP API, or a function URL\); it has Records/,
    );
  });
});

describe("@reportkit/lambda: a base64 body is decoded after the credential, and never throws", () => {
  const SIX_MIB = "a".repeat(6 * 1024 * 1024);
  /** What atob was given so far, in characters: what the handler decoded. */
  let decoded: () => number;
  afterEach(() => vi.restoreAllMocks());
  const watchAtob = () => {
    const spy = vi.spyOn(globalThis, "atob");
    decoded = () => spy.mock.calls.reduce((sum, [text]) => sum + String(text).length, 0);
  };

  it("an 8 MB base64 body without the secret: 401, and nothing of it decoded", async () => {
    watchAtob();
    const handler = webhookReceiver({ secret: TOKEN, onDelivery: vi.fn() });
    const event = restApiEvent({
      headers: { Authorization: "Bearer wrong", "Content-Type": "application/json" },
      body: SIX_MIB,
      base64: true,
    });
    expect((event.body ?? "").length).toBeGreaterThan(8_000_000);
    const result = await handler(event);
    expect(result.statusCode).toBe(401);
    expect(decoded()).toBe(0);
  });

  it("an 8 MB base64 body with the secret: 413 on its size, nothing of it decoded", async () => {
    watchAtob();
    const handler = webhookReceiver({ secret: TOKEN, onDelivery: vi.fn() });
    const result = await handler(
      restApiEvent({ headers: JSON_HEADERS, body: SIX_MIB, base64: true }),
    );
    expect(result.statusCode).toBe(413);
    expect(JSON.parse(result.body).error.code).toBe("payload_too_large");
    expect(decoded()).toBe(0);
  });

  it("an 8 MB base64 body in lines (its size unknown until decoded): 413, decoded no further than maxBodyBytes and a slice", async () => {
    watchAtob();
    const handler = webhookReceiver({ secret: TOKEN, onDelivery: vi.fn() });
    const event = restApiEvent({ headers: JSON_HEADERS, body: "x", base64: true });
    const lines = Buffer.from(SIX_MIB).toString("base64").replace(/.{76}/g, "$&\r\n");
    const result = await handler({ ...event, body: lines });
    expect(result.statusCode).toBe(413);
    // 64 KiB of bytes is 87,382 characters of base64; one slice more at most.
    expect(decoded()).toBeLessThanOrEqual(87_382 + 65_536);
  });

  it.each(EVENTS)(
    "a body that is not base64 (%s): 400 body_read_failed with the token, 401 without",
    async (_name, eventOf) => {
      const onDelivery = vi.fn();
      const handler = webhookReceiver({ secret: TOKEN, onDelivery });
      const invalid = (headers: Record<string, string>) => ({
        ...eventOf({ headers, body: "x", base64: true }),
        body: "%%% this is not base64 %%%",
      });
      const refused = await handler(invalid(JSON_HEADERS));
      expect(refused.statusCode).toBe(400);
      expect(JSON.parse(refused.body).error.code).toBe("body_read_failed");
      const unauthenticated = await handler(
        invalid({ ...JSON_HEADERS, Authorization: "Bearer no" }),
      );
      expect(unauthenticated.statusCode).toBe(401);
      expect(onDelivery).not.toHaveBeenCalled();
    },
  );

  it("a payload 2.0 event without requestContext: 400 body_read_failed with the token, 401 without", async () => {
    const handler = webhookReceiver({ secret: TOKEN, onDelivery: vi.fn() });
    const { requestContext: _none, ...event } = httpApiEvent({
      headers: JSON_HEADERS,
      body: SAMPLE_DLR_TEXT,
    });
    const refused = await handler(event as never);
    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(refused.body).error.code).toBe("body_read_failed");
    const { requestContext: _also, ...unauthenticated } = httpApiEvent({
      headers: { ...JSON_HEADERS, Authorization: "Bearer no" },
      body: SAMPLE_DLR_TEXT,
    });
    expect((await handler(unauthenticated as never)).statusCode).toBe(401);
  });
});
