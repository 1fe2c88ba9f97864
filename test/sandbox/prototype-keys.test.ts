// Every sandbox endpoint that reads a body, fuzzed with keys that name an object's prototype
// machinery ("__proto__" at any depth, "constructor" and "prototype" at the top): each is
// refused 422 naming the key, never 500, and nothing reaches Object.prototype.
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const API_TOKEN = "proto-api-token";
let sandbox: Sandbox;
let dashboardKey: string;
let webhookId: string;
let reportId: string;

beforeAll(async () => {
  sandbox = await createSandbox({ token: API_TOKEN, retryIntervalMs: 3_600_000, timeoutMs: 500 });
  dashboardKey = new URL(sandbox.dashboardUrl).hash.replace("#key=", "");
  const created = await call("api", "POST", "developer/webhooks", {
    name: "proto",
    uri: "http://127.0.0.1:9/unreachable",
  });
  webhookId = (created.body as { data: { id: string } }).data.id;
  const sent = await call("api", "POST", "sandbox/sms", { webhook_id: webhookId });
  reportId = (sent.body as { data: { report_id: string } }).data.report_id;
});

afterAll(() => sandbox.close());

/** The sandbox's API and the dashboard's, on the same routes. */
async function call(
  via: "api" | "dashboard",
  method: string,
  path: string,
  body: unknown,
  type = "application/json",
) {
  const base =
    via === "api" ? sandbox.baseUrl : new URL("/dashboard/api/", sandbox.baseUrl).toString();
  const headers: Record<string, string> =
    via === "api"
      ? { authorization: `Bearer ${API_TOKEN}` }
      : { "x-reportkit-dashboard-key": dashboardKey };
  headers["content-type"] = type;
  const response = await fetch(new URL(path, base), {
    method,
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as unknown };
}

const endpoints = (): [string, string][] => [
  ["POST", "developer/webhooks"],
  ["POST", "developer/webhook/create"],
  ["PUT", `developer/webhooks/${webhookId}`],
  ["PATCH", `developer/webhooks/${webhookId}`],
  ["POST", "sandbox/sms"],
  ["POST", "sandbox/calls"],
  ["POST", "sandbox/composed-webhooks"],
  ["POST", `sandbox/reports/${encodeURIComponent(reportId)}/resend`],
  ["POST", `sandbox/reports/${encodeURIComponent(reportId)}/retry-now`],
];

function prototypeUntouched() {
  const probe: Record<string, unknown> = {};
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(probe.polluted).toBeUndefined();
  expect(probe.name).toBeUndefined();
}

describe("the sandbox refuses prototype keys with 422 naming them", () => {
  it('the reported case: {"name":"x","__proto__":""} and a top-level "constructor" on composed-webhooks', async () => {
    for (const text of ['{"name":"x","__proto__":""}', '{"name":"x","constructor":1}']) {
      const reply = await call("api", "POST", "sandbox/composed-webhooks", text);
      expect(reply.status).toBe(422);
      const key = text.includes("__proto__") ? "__proto__" : "constructor";
      expect((reply.body as { message: string }).message).toBe(
        `The request body has a "${key}" key, which no field of this API has and which could reach an object's prototype; leave it out.`,
      );
      expect(Object.keys((reply.body as { errors: object }).errors)).toEqual([key]);
    }
    prototypeUntouched();
  });

  it("a form body with such a key too", async () => {
    const reply = await call(
      "api",
      "POST",
      "sandbox/sms",
      `webhook_id=${webhookId}&constructor=x`,
      "application/x-www-form-urlencoded",
    );
    expect(reply.status).toBe(422);
    expect((reply.body as { message: string }).message).toMatch(/"constructor" key/);
  });

  it("fuzz: every endpoint, through the API and the dashboard, with the key anywhere", async () => {
    const field = fc.constantFrom(
      "name",
      "uri",
      "url",
      "type",
      "method",
      "body",
      "headers",
      "webhook_id",
      "status",
      "token",
      "secret",
      "mobile",
      "to",
    );
    const value = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.integer(),
      fc.constant(null),
      fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
    );
    const dangerous = fc.record({
      key: fc.constantFrom("__proto__", "constructor", "prototype"),
      nested: fc.boolean(),
      payload: fc.oneof(fc.constant(""), fc.constant({ polluted: true, name: "p" }), fc.integer()),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...endpoints()),
        fc.constantFrom("api" as const, "dashboard" as const),
        fc.dictionary(field, value, { maxKeys: 4 }),
        dangerous,
        async ([method, path], via, fields, { key, nested, payload }) => {
          // Written as text: an object literal's "__proto__" would set the prototype instead.
          const inner = `{${JSON.stringify(key === "__proto__" || !nested ? key : "__proto__")}:${JSON.stringify(payload)}}`;
          const extra = nested
            ? `"headers":${inner}`
            : `${JSON.stringify(key)}:${JSON.stringify(payload)}`;
          const rest = JSON.stringify(fields).slice(1, -1);
          const text = `{${rest}${rest === "" ? "" : ","}${extra}}`;
          const reply = await call(via, method, path, text);
          expect(reply.status).toBe(422);
          const named = nested ? "__proto__" : key;
          expect((reply.body as { message: string }).message).toContain(`"${named}" key`);
          prototypeUntouched();
        },
      ),
      { numRuns: 150 },
    );
  });

  it("a body without such keys is still taken (no false refusal)", async () => {
    const reply = await call("api", "POST", "sandbox/composed-webhooks", {
      name: "fine",
      type: "delivery",
      method: "POST",
      url: "http://127.0.0.1:9/ack",
      body: { constructor_name: "{{id}}", s: "{{status}}" },
    });
    expect(reply).toMatchObject({ status: 200 });
  });
});
