import { ComposedTemplateError, createReceiver, type DeliveryReport } from "@reportkit/core";
import { describe, expect, it } from "vitest";
import { composedRequest } from "./composed-request.js";

const CALL_GET = {
  type: "call",
  method: "GET",
  url: "https://example.com/ack/receive?call_id={{id}}&to={{to}}&message_status={{status}}",
} as const;

const DLR_FORM = {
  type: "delivery",
  method: "POST",
  url: "https://example.com/dlr",
  body: { msg_id: "{{id}}", state: "{{status}}", phone: "{{mobile}}", at: "{{deliv_at}}" },
  format: "form",
} as const;

describe("composedRequest", () => {
  it("GET: the template's URL with every value filled in and URL-encoded, no body", () => {
    const request = composedRequest(CALL_GET, { id: "a b&c", status: "NO ANSWER" });
    expect(request.method).toBe("GET");
    expect(request.url).toBe(
      "https://example.com/ack/receive?call_id=a%20b%26c&to=919876543210&message_status=NO%20ANSWER",
    );
    expect(request.body).toBeUndefined();
    expect(request.headers).toEqual({});
    expect(request.values).toMatchObject({ id: "a b&c", mid: "a b&c", to: "919876543210" });
  });

  it("gives each variable without a value a realistic default, as strings", () => {
    const request = composedRequest({ ...DLR_FORM, format: "urlencoded" });
    expect(request.values).toMatchObject({
      id: expect.stringMatching(/:1$/),
      status: "DELIVRD",
      mobile: "919876543210",
      units: "1",
      deliv_time: "2021-04-09 16:27:51",
      deliv_at: "1617965871", // the same instant, read in Asia/Kolkata
    });
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
      msg_id: request.values.id,
      state: "DELIVRD",
      phone: "919876543210",
      at: "1617965871",
    });
  });

  it("json: the body keys as a JSON object of strings", () => {
    const request = composedRequest(
      { ...DLR_FORM, format: "json", method: "PUT" },
      { id: "m:1", units: 3 },
    );
    expect(request.method).toBe("PUT");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(request.body ?? "")).toEqual({
      msg_id: "m:1",
      state: "DELIVRD",
      phone: "919876543210",
      at: "1617965871",
    });
  });

  it("form: multipart/form-data that a web Request reads back field by field", async () => {
    const request = composedRequest(DLR_FORM, { id: 'q"uote:1', status: "line\nbreak" });
    expect(request.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    const form = await new Request("http://x/", {
      method: "POST",
      headers: request.headers,
      body: request.body ?? null,
    }).formData();
    expect(form.get("msg_id")).toBe('q"uote:1');
    expect(form.get("state")).toBe("line\r\nbreak");
    expect(form.get("phone")).toBe("919876543210");
  });

  it("is read by a receiver built from the same template as the report it stands for", async () => {
    const received: DeliveryReport[] = [];
    const receiver = createReceiver({
      secret: false,
      composed: DLR_FORM,
      onDelivery: (report) => {
        received.push(report);
      },
    });
    const request = composedRequest(DLR_FORM, { status: "UNDELIV" });
    const response = await receiver.fetch(
      new Request(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body ?? null,
      }),
    );
    expect(response.status).toBe(200);
    expect(received[0]).toMatchObject({
      id: request.values.id,
      status: "UNDELIV",
      mobile: "919876543210",
      deliveredAt: new Date("2021-04-09T10:57:51Z"),
    });
  });

  it("refuses what the receiver refuses, with the receiver's error", () => {
    expect(() =>
      composedRequest({ type: "delivery", url: "https://x/dlr?i={{id}}&s={{stat}}" }),
    ).toThrow(/Unknown variable \{\{stat\}\} in the url's query parameter "s"/);
    expect(() =>
      composedRequest({
        type: "call",
        method: "GET",
        url: "https://x/c?s={{status}}",
        body: { a: "{{to}}" },
      }),
    ).toThrow(/A GET webhook has no body/);
    expect(() =>
      composedRequest({ type: "delivery", url: "https://x/dlr?i={{id}}&s={{stat}}" }),
    ).toThrow(ComposedTemplateError);
  });

  it("sends the template's own headers, and literal text around a query value", () => {
    const request = composedRequest(
      {
        type: "delivery",
        method: "post",
        url: "https://example.com/dlr?ref=dlr-{{id}}&s={{status}}",
        headers: { "X-Api-Key": "k-1" },
      },
      { id: "m:1" },
    );
    expect(request.method).toBe("POST");
    expect(request.url).toBe("https://example.com/dlr?ref=dlr-m%3A1&s=DELIVRD");
    expect(request.headers).toEqual({ "x-api-key": "k-1" });
  });

  it("refuses a value for a variable the template's type does not have", () => {
    expect(() =>
      // @ts-expect-error: mobile is a delivery variable, not a call one
      composedRequest(CALL_GET, { mobile: "91" }),
    ).toThrow('a call template has no variable "mobile"; use one of webhook_id, bridge, from, to');
  });
});
