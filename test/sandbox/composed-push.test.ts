// Composed webhooks (provider-interface.md 6.3, field-notes.md "Composed webhooks"): the
// customer's method, URL, body keys, format and headers, with {{variables}} filled in.

import { createClient } from "@reportkit/client";
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Recorder, startRecorder } from "./servers.js";

const TOKEN = "sandbox-api-token";
let sandbox: Sandbox;
let recorder: Recorder;

beforeEach(async () => {
  sandbox = await createSandbox({ token: TOKEN, retryIntervalMs: 20, timeoutMs: 10_000 });
  recorder = await startRecorder();
});

afterEach(async () => {
  await sandbox.close();
  await recorder.close();
});

async function formOf(request: Recorder["requests"][number]): Promise<Record<string, string>> {
  const form = await new Response(new Uint8Array(request.body), {
    headers: { "content-type": request.headers["content-type"] ?? "" },
  }).formData();
  return Object.fromEntries([...form].map(([k, v]) => [k, String(v)]));
}

describe("composed pushes", () => {
  it("GET: every value in the URL, URL-encoded, no body", async () => {
    const hook = sandbox.createComposedWebhook({
      name: "ack",
      type: "call",
      method: "GET",
      url: `${recorder.url}/ack/receive?call_id={{id}}&to={{to}}&message_status={{status}}&at={{start_at}}`,
      secret: "hook-secret",
      token: "hook-token",
    });
    const sent = sandbox.makeCall({ webhookId: hook.id });
    expect(await sent.outcome).toBe("delivered");
    const [request] = recorder.requests;
    expect(request?.method).toBe("GET");
    expect(request?.body.length).toBe(0);
    // The webhook's secret is the bearer; its token is never sent (a composed webhook is not verified).
    expect(request?.headers.authorization).toBe("Bearer hook-secret");
    expect(recorder.requests).toHaveLength(1);
    const url = new URL(request?.url ?? "", recorder.url);
    expect(url.pathname).toBe("/ack/receive");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      call_id: sent.report.mid,
      to: String(sent.report.to),
      message_status: "ANSWER",
      at: sent.report.start_at,
    });
    expect(request?.url).toContain(
      `&at=${sent.report.start_at.replace(" ", "%20").replaceAll(":", "%3A")}`,
    );
  });

  it("POST JSON: the customer's keys, every value a string", async () => {
    const hook = sandbox.createComposedWebhook({
      name: "json",
      type: "call",
      url: `${recorder.url}/calls/{{id}}`,
      body: { id: "{{id}}", to: "{{to}}", status: "{{status}}", duration: "{{duration}}" },
    });
    const sent = sandbox.makeCall({ webhookId: hook.id });
    await sent.outcome;
    const [request] = recorder.requests;
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe(`/calls/${sent.report.mid}`);
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(request?.text ?? "")).toEqual({
      id: sent.report.mid,
      to: String(sent.report.to),
      status: "ANSWER",
      duration: "23",
    });
  });

  it("PUT multipart form-data", async () => {
    const hook = sandbox.createComposedWebhook({
      name: "form",
      type: "delivery",
      method: "PUT",
      format: "form",
      url: `${recorder.url}/dlr`,
      body: { message_id: "{{id}}", state: "{{status}}", delivered: "{{deliv_at}}" },
    });
    const sent = sandbox.sendSms({ webhookId: hook.id });
    await sent.outcome;
    const [request] = recorder.requests;
    expect(request?.method).toBe("PUT");
    expect(request?.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(await formOf(request as Recorder["requests"][number])).toEqual({
      message_id: sent.report.id,
      state: "DELIVRD",
      delivered: sent.report.deliv_at,
    });
  });

  it("POST urlencoded form", async () => {
    const hook = sandbox.createComposedWebhook({
      name: "urlencoded",
      type: "delivery",
      format: "urlencoded",
      url: `${recorder.url}/dlr`,
      body: { message_id: "{{id}}", state: "{{status}}", ref: "{{custom}}" },
    });
    const sent = sandbox.sendSms({ webhookId: hook.id, custom: "a&b" });
    await sent.outcome;
    const [request] = recorder.requests;
    expect(request?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(request?.text))).toEqual({
      message_id: sent.report.id,
      state: "DELIVRD",
      ref: "a&b",
    });
  });

  it("sends the template's headers as written, over the default bearer", async () => {
    const hook = sandbox.createComposedWebhook({
      name: "headers",
      type: "delivery",
      url: `${recorder.url}/dlr`,
      body: { id: "{{id}}", s: "{{status}}" },
      headers: { "X-Api-Key": "key-123", "X-Source": "panel" },
      secret: "s",
    });
    const sent = sandbox.sendSms({ webhookId: hook.id });
    await sent.outcome;
    const headers = recorder.requests[0]?.headers;
    expect(headers?.["x-api-key"]).toBe("key-123");
    expect(headers?.["x-source"]).toBe("panel");
    expect(headers?.authorization).toBe("Bearer s");
  });

  it("fills a query value with literal text around its variable, method in any case", async () => {
    const hook = sandbox.createComposedWebhook({
      name: "literal",
      type: "delivery",
      method: "get",
      url: `${recorder.url}/dlr?ref=dlr-{{id}}&s={{status}}`,
    });
    const sent = sandbox.sendSms({ webhookId: hook.id });
    await sent.outcome;
    const [request] = recorder.requests;
    expect(request?.method).toBe("GET");
    const url = new URL(request?.url ?? "", recorder.url);
    expect(url.searchParams.get("ref")).toBe(`dlr-${sent.report.id}`);
  });

  it("retries a composed push like a standard one", async () => {
    await recorder.close();
    recorder = await startRecorder(() => 500);
    const hook = sandbox.createComposedWebhook({
      name: "fails",
      type: "delivery",
      method: "GET",
      url: `${recorder.url}/dlr?id={{id}}&s={{status}}`,
    });
    expect(await sandbox.sendSms({ webhookId: hook.id }).outcome).toBe("dropped");
    expect(recorder.requests.map((r) => r.method)).toEqual(["GET", "GET", "GET", "GET"]);
  });

  it("is registered over HTTP too, listed like any webhook, and refuses the wrong report type", async () => {
    const response = await fetch(`${sandbox.baseUrl}sandbox/composed-webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "over http",
        type: "delivery",
        method: "get",
        url: `${recorder.url}/dlr?id={{id}}&s={{status}}`,
        headers: { "x-api-key": "secret-key" },
      }),
    });
    const body = await response.json();
    expect(response.status).toBe(200);
    expect(body.data.composed).toEqual({
      type: "delivery",
      method: "GET",
      url: `${recorder.url}/dlr?id={{id}}&s={{status}}`,
      format: "json",
      body: null,
      headers: ["x-api-key"],
    });
    expect(JSON.stringify(body)).not.toContain("secret-key");
    const listed = await createClient({ baseUrl: sandbox.baseUrl, token: TOKEN }).webhooks.list();
    expect(listed.data.map((w) => w.uri)).toEqual([`${recorder.url}/dlr?id={{id}}&s={{status}}`]);

    const call = await fetch(`${sandbox.baseUrl}sandbox/calls`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ webhook_id: body.data.id }),
    });
    expect(call.status).toBe(422);
    expect((await call.json()).errors.webhook_id[0]).toMatch(
      /composed webhook for SMS delivery reports/,
    );
  });

  it("re-checks the template when its uri is edited, keeping its method, body and headers", async () => {
    const hook = sandbox.createComposedWebhook({
      name: "edit",
      type: "delivery",
      method: "put",
      url: `${recorder.url}/old?i={{id}}`,
      body: { s: "{{status}}" },
      headers: { "x-api-key": "k" },
    });
    const edit = (uri: string) =>
      fetch(`${sandbox.baseUrl}developer/webhooks/${hook.id}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "edit", uri }),
      });
    const refused = await edit(`${recorder.url}/new?s={{status}}`);
    expect(refused.status).toBe(422);
    // Identity is judged on the url and the body together: a template with a body names "body".
    expect((await refused.json()).errors.body).toEqual([
      "A delivery template must carry {{id}} in its url or a body value: without it a report cannot be identified, and the receiver refuses it.",
    ]);
    expect((await edit(`${recorder.url}/new?ref=dlr-{{id}}`)).status).toBe(200);
    const sent = sandbox.sendSms({ webhookId: hook.id });
    expect(await sent.outcome).toBe("delivered");
    const [request] = recorder.requests;
    expect(request?.method).toBe("PUT");
    expect(request?.url).toBe(`/new?ref=dlr-${encodeURIComponent(sent.report.id)}`);
    expect(request?.headers["x-api-key"]).toBe("k");
    expect(JSON.parse(request?.text ?? "")).toEqual({ s: "DELIVRD" });
  });

  it("rejects an invalid template with 422 and the fields", async () => {
    const response = await fetch(`${sandbox.baseUrl}sandbox/composed-webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({
        type: "call",
        url: "https://x.example/{{mobile}}",
        method: "GET",
        body: { a: "{{id}}" },
      }),
    });
    expect(response.status).toBe(422);
    const body = await response.json();
    expect(Object.keys(body.errors).sort()).toEqual(["body", "name", "url"]);
    expect(body).toMatchObject({ status: "Error", code: 422 });
  });
});
