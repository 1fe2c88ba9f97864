import type { DeliveryReport } from "@reportkit/core";
import { webhookReceiver } from "@reportkit/lambda";
import { describe, expect, it, vi } from "vitest";
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

  it("a wrong token: 401 with the challenge, the handler not run", async () => {
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
