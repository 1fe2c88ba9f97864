// A composed template pasted from the provider's raw pages, "@{{id}}" and all (field-notes.md,
// "Composed webhooks"), reads requests exactly as its "{{id}}" form does.
import type { ComposedTemplate } from "@reportkit/wire";
import { describe, expect, it } from "vitest";
import {
  AUTH,
  composedReceiver as receiverFor,
} from "../../../../test/fixtures/receiver-requests.js";
import type { ReceiverRequest } from "../base/types.js";

/** The reports the @{{name}} template and its {{name}} twin make of the same request. */
async function bothForms(composed: ComposedTemplate, request: ReceiverRequest) {
  const plain: ComposedTemplate = JSON.parse(JSON.stringify(composed).replaceAll("@{{", "{{"));
  const results = [];
  for (const template of [composed, plain]) {
    const { receiver, reports } = receiverFor(template);
    const reply = await receiver.handle(request);
    results.push({ status: reply.status, body: reply.body, reports });
  }
  return results;
}

describe("composed templates in the provider's @{{name}} form", () => {
  it("reads v2/sms/webhook.md's compose request, @{{id}} in the query and the JSON body", async () => {
    const template: ComposedTemplate = {
      type: "delivery",
      url: "https://www.domain.com/ack/receive?id=@{{id}}",
      body: {
        id: "@{{id}}",
        mobile: "@{{mobile}}",
        message_status: "@{{status}}",
        credits: "@{{credits}}",
      },
    };
    const request: ReceiverRequest = {
      method: "POST",
      url: "/ack/receive?id=b34e35ad-fe34-4a8b-977c-b21cd76cd7d6%3A1",
      headers: { ...AUTH, "content-type": "application/json" },
      body: JSON.stringify({
        id: "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1",
        mobile: "918921269123",
        message_status: "DELIVRD",
        credits: "2.0000",
      }),
    };
    const [escaped, plain] = await bothForms(template, request);
    expect(escaped?.status).toBe(200);
    expect(escaped?.reports).toEqual([
      expect.objectContaining({
        type: "delivery",
        id: "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1",
        mobile: "918921269123",
        status: "DELIVRD",
        credits: "2.0000",
        // No variable carries them: a composed DLR has them null.
        custom1: null,
        location: null,
        providerCode: null,
        warnings: [],
      }),
    ]);
    expect(escaped).toEqual(plain);
  });

  it("reads the call page's GET callback with the customer's own keys", async () => {
    const template: ComposedTemplate = {
      type: "call",
      method: "GET",
      url: "https://www.domain.com/ack/receive?call_id=@{{id}}&to=@{{to}}&message_status=@{{status}}",
    };
    const request: ReceiverRequest = {
      method: "GET",
      url: "/ack/receive?call_id=c-77&to=919876543210&message_status=ANSWER",
      headers: AUTH,
    };
    const [escaped, plain] = await bothForms(template, request);
    expect(escaped?.status).toBe(200);
    expect(escaped?.reports).toEqual([
      expect.objectContaining({ type: "call", mid: "c-77", to: "919876543210", status: "ANSWER" }),
    ]);
    expect(escaped).toEqual(plain);
  });

  it("matches a path placeholder with text around it, the @ not expected in the request", async () => {
    const template: ComposedTemplate = {
      type: "delivery",
      method: "PUT",
      url: "/hooks/m-@{{id}}/@{{status}}",
      format: "urlencoded",
      body: { n: "@{{mobile}}" },
    };
    const request: ReceiverRequest = {
      method: "PUT",
      url: "/hooks/m-x%3A1/UNDELIV",
      headers: { ...AUTH, "content-type": "application/x-www-form-urlencoded" },
      body: "n=919876543210",
    };
    const [escaped, plain] = await bothForms(template, request);
    expect(escaped?.status).toBe(200);
    expect(escaped?.reports).toEqual([
      expect.objectContaining({ id: "x:1", status: "UNDELIV", mobile: "919876543210" }),
    ]);
    expect(escaped).toEqual(plain);
  });
});
