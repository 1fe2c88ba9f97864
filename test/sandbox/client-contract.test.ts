// Contract: the client against the sandbox over real HTTP, every call and error path; and the
// sandbox's responses against the documentation's examples, shape for shape.
import { ApiError, type Client, createClient, RequestFailedError } from "@reportkit/client";
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  DOC_CREATE_RESPONSE_TEXT,
  DOC_DELETE_RESPONSE_TEXT,
  DOC_EDIT_RESPONSE_TEXT,
  DOC_LIST_RESPONSE_TEXT,
  DOC_SHOW_RESPONSE_TEXT,
} from "../fixtures/management-api.js";
import { shapeOf } from "./shape.js";

const TOKEN = "contract-api-token-xyz";
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000000Z$/;

let sandbox: Sandbox;
let client: Client;

beforeAll(async () => {
  sandbox = await createSandbox({ token: TOKEN });
  client = createClient({ baseUrl: sandbox.baseUrl, token: TOKEN });
});

afterAll(() => sandbox.close());

/** A raw call, to see the wire format the client hides. */
async function raw(method: string, path: string, body?: unknown, token: string | null = TOKEN) {
  const headers: Record<string, string> = { accept: "application/json" };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(new URL(path, sandbox.baseUrl), {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, json: await response.json() };
}

async function deleteAll(): Promise<void> {
  const ids = [];
  for await (const webhook of client.webhooks.iterate()) ids.push(webhook.id);
  for (const id of ids) await client.webhooks.delete(id);
}

describe("every call over real HTTP", () => {
  beforeEach(deleteAll);

  it("create → get → update → list → delete", async () => {
    // Created with a token, the webhook is sent its verification request: to a reserved name
    // (RFC 2606) that resolves nowhere, never to a real host.
    const created = await client.webhooks.create({
      name: "orders",
      uri: "https://orders.example/reports",
      secret: "s3cret",
      token: "verify-me",
    });
    expect(created).toMatchObject({
      name: "orders",
      uri: "https://orders.example/reports",
      status: 1,
      active: true,
      secret: "********",
      verificationCode: "********",
    });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.raw.status).toBe("1");
    expect(created.raw.created_at).toMatch(TIMESTAMP);
    expect(created.createdAt).toBeInstanceOf(Date);

    const shown = await client.webhooks.get(created.id);
    expect(shown).toMatchObject({ id: created.id, status: 1 });
    expect(shown.raw.status).toBe(1);

    const updated = await client.webhooks.update(created.id, {
      name: "orders v2",
      uri: "https://my.app/v2",
      status: 0,
    });
    expect(updated).toMatchObject({
      name: "orders v2",
      uri: "https://my.app/v2",
      status: 0,
      active: false,
    });
    expect(updated.raw.status).toBe("0");
    expect(updated.secret).toBe("********");

    const page = await client.webhooks.list();
    expect(page.data.map((w) => [w.id, w.name, w.status])).toEqual([[created.id, "orders v2", 0]]);

    await client.webhooks.delete(created.id);
    const gone = await client.webhooks.get(created.id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(ApiError);
    expect((gone as ApiError).status).toBe(404);
  });

  it("creates at the developer/webhook/create alias too", async () => {
    const response = await raw("POST", "developer/webhook/create", {
      name: "alias",
      uri: "https://a.example/",
    });
    expect(response.status).toBe(200);
    expect(response.json.data.status).toBe("1");
    const page = await client.webhooks.list();
    expect(page.data.map((w) => w.name)).toEqual(["alias"]);
  });

  it("pages by 15, with a working filter[name], and iterate walks every page", async () => {
    for (let i = 1; i <= 20; i++) {
      await client.webhooks.create({
        name: `hook-${String(i).padStart(2, "0")}`,
        uri: "https://a.example/",
      });
    }
    await client.webhooks.create({ name: "Other", uri: "https://b.example/" });
    const first = await client.webhooks.list();
    expect(first.data).toHaveLength(15);
    expect(first.page).toMatchObject({
      current: 1,
      last: 2,
      perPage: 15,
      total: 21,
      from: 1,
      to: 15,
    });
    expect(first.links.next).toBe(`${sandbox.baseUrl}developer/webhooks?page=2`);
    const second = await client.webhooks.list({ page: 2 });
    expect(second.data).toHaveLength(6);
    expect(second.page).toMatchObject({ current: 2, from: 16, to: 21 });
    expect(second.links.next).toBeNull();

    const names = [];
    for await (const webhook of client.webhooks.iterate()) names.push(webhook.name);
    expect(names).toHaveLength(21);
    expect(names[0]).toBe("hook-01");
    expect(names.at(-1)).toBe("Other");

    const filtered = await client.webhooks.list({ name: "hook-1" });
    expect(filtered.data.map((w) => w.name)).toEqual([
      "hook-10",
      "hook-11",
      "hook-12",
      "hook-13",
      "hook-14",
      "hook-15",
      "hook-16",
      "hook-17",
      "hook-18",
      "hook-19",
    ]);
    const other = [];
    for await (const w of client.webhooks.iterate({ name: "other" })) other.push(w.name);
    expect(other).toEqual(["Other"]);

    const beyond = await client.webhooks.list({ page: 9 });
    expect(beyond.data).toEqual([]);
  });

  it("keeps name and uri required on edit, as the API does", async () => {
    const hook = await client.webhooks.create({ name: "x", uri: "https://a.example/" });
    const error = (await client.webhooks
      .update(hook.id, { name: "", uri: "" })
      .catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(422);
    expect(error.errors).toEqual({
      name: ["The name field is required."],
      uri: ["The uri field is required."],
    });
  });
});

describe("error paths", () => {
  it("401 without a token or with a wrong one; the message says to check the token and hides it", async () => {
    const missing = await raw("GET", "developer/webhooks", undefined, null);
    expect(missing.status).toBe(401);
    expect(missing.json).toEqual({ status: "Error", code: 401, message: "Unauthenticated." });
    expect(missing.headers.get("www-authenticate")).toBe("Bearer");

    const wrongToken = "wrong-token-should-not-leak";
    const wrong = createClient({ baseUrl: sandbox.baseUrl, token: wrongToken });
    for (const call of [
      () => wrong.webhooks.list(),
      () => wrong.webhooks.create({ name: "n", uri: "https://a.example/" }),
      () => wrong.webhooks.get("x"),
      () => wrong.webhooks.update("x", { name: "n", uri: "https://a.example/" }),
      () => wrong.webhooks.delete("x"),
    ]) {
      const error = (await call().catch((e: unknown) => e)) as ApiError;
      expect(error).toBeInstanceOf(ApiError);
      expect(error.status).toBe(401);
      expect(error.code).toBe(401);
      expect(error.message).toMatch(/Unauthenticated\. Check the access token/);
      expect(error.message).not.toContain(wrongToken);
      expect(String(error.stack)).not.toContain(wrongToken);
    }
  });

  it("422 names each invalid field, Laravel-style", async () => {
    const error = (await client.webhooks
      .create({ name: "", uri: "not a url", status: 7 as 0 | 1, secret: 5 as unknown as string })
      .catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(422);
    expect(error.message).toBe(
      "POST developer/webhooks failed with 422 Unprocessable Entity: The name field is required. (and 3 more errors)",
    );
    expect(error.errors).toEqual({
      name: ["The name field is required."],
      uri: ["The uri field must be a valid URL."],
      status: ["The selected status is invalid."],
      secret: ["The secret field must be a string."],
    });
    expect(error.body).toMatchObject({ status: "Error", code: 422, errors: error.errors });
  });

  it("404 for an unknown id on get, update and delete", async () => {
    for (const call of [
      () => client.webhooks.get("00000000-0000-4000-8000-000000000000"),
      () =>
        client.webhooks.update("00000000-0000-4000-8000-000000000000", {
          name: "n",
          uri: "https://a.example/",
        }),
      () => client.webhooks.delete("00000000-0000-4000-8000-000000000000"),
    ]) {
      const error = (await call().catch((e: unknown) => e)) as ApiError;
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 404, code: 404 });
      expect(error.message).toMatch(/Webhook 00000000-0000-4000-8000-000000000000 not found/);
    }
  });

  it("404 for an unknown route, 405 with Allow for a wrong method, 400 for a body that is not JSON", async () => {
    const route = await raw("GET", "developer/nothing");
    expect(route.status).toBe(404);
    expect(route.json.message).toBe("The route developer/nothing could not be found.");
    const method = await raw("DELETE", "developer/webhooks");
    expect(method.status).toBe(405);
    expect(method.headers.get("allow")).toBe("GET, HEAD, POST");
    const broken = await raw("POST", "developer/webhooks", "{not json");
    expect(broken.status).toBe(400);
    expect(broken.json).toMatchObject({ status: "Error", code: 400 });
    const badId = await raw("GET", "developer/webhooks/%E0%A4%A");
    expect(badId.status).toBe(404);
    expect(badId.json.message).toBe("Webhook %E0%A4%A not found.");
  });

  it("accepts a form-encoded body as Laravel does", async () => {
    const response = await fetch(new URL("developer/webhooks", sandbox.baseUrl), {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "name=form&uri=https%3A%2F%2Fform.example%2F&status=0",
    });
    const body = await response.json();
    expect(body.data).toMatchObject({ name: "form", uri: "https://form.example/", status: "0" });
  });

  it("a closed sandbox gives a RequestFailedError after the retries (GET) or at once (POST)", async () => {
    const gone = await createSandbox({ token: TOKEN });
    await gone.close();
    const offline = createClient({
      baseUrl: gone.baseUrl,
      token: TOKEN,
      retries: 1,
      retryBaseMs: 10,
    });
    const list = (await offline.webhooks.list().catch((e: unknown) => e)) as RequestFailedError;
    expect(list).toBeInstanceOf(RequestFailedError);
    expect(list.attempts).toBe(2);
    expect(list.message).toMatch(/ECONNREFUSED/);
    const create = (await offline.webhooks
      .create({ name: "n", uri: "https://a.example/" })
      .catch((e: unknown) => e)) as RequestFailedError;
    expect(create.attempts).toBe(1);
  });
});

describe("the sandbox's responses match the documentation's examples", () => {
  beforeEach(deleteAll);

  it("list, create, show, edit and delete have the documented shape and messages", async () => {
    const created = await raw("POST", "developer/webhooks", {
      name: "n",
      uri: "https://a.example/",
      secret: "s",
    });
    const id = created.json.data.id;
    const list = await raw("GET", "developer/webhooks");
    const show = await raw("GET", `developer/webhooks/${id}`);
    const edit = await raw("PUT", `developer/webhooks/${id}`, {
      name: "m",
      uri: "https://b.example/",
      status: 0,
    });
    const remove = await raw("DELETE", `developer/webhooks/${id}`);

    expect(shapeOf(created.json)).toEqual(shapeOf(JSON.parse(DOC_CREATE_RESPONSE_TEXT)));
    expect(shapeOf(list.json)).toEqual(shapeOf(JSON.parse(DOC_LIST_RESPONSE_TEXT)));
    expect(shapeOf(show.json)).toEqual(shapeOf(JSON.parse(DOC_SHOW_RESPONSE_TEXT)));
    expect(shapeOf(edit.json)).toEqual(shapeOf(JSON.parse(DOC_EDIT_RESPONSE_TEXT)));
    expect(remove.json).toEqual(JSON.parse(DOC_DELETE_RESPONSE_TEXT));

    expect([created, list, show, edit].map((r) => r.json.message)).toEqual([
      "Created successfully",
      "Created successfully",
      "OK",
      "Updated successfully",
    ]);
    expect(created.json.data.status).toBe("1");
    expect(list.json.data[0].status).toBe("1");
    expect(show.json.data.status).toBe(1);
    expect(edit.json.data.status).toBe("0");
    expect(Object.keys(show.json.data)).toEqual(
      Object.keys(JSON.parse(DOC_SHOW_RESPONSE_TEXT).data),
    );
    expect(list.json.meta.links.map((l: { label: string }) => l.label)).toEqual([
      "&laquo; Previous",
      "1",
      "Next &raquo;",
    ]);
    expect(created.json.data.created_at).toMatch(TIMESTAMP);
  });
});

describe("sandbox-only endpoints over HTTP", () => {
  it("send an SMS and make a call by webhook_id, then read the push attempts", async () => {
    const hook = await client.webhooks.create({
      name: "nowhere",
      uri: "http://127.0.0.1:9/x",
      status: 0,
    });
    const sms = await raw("POST", "sandbox/sms", {
      webhook_id: hook.id,
      mobile: "919900112233",
      custom: "c1",
    });
    expect(sms.status).toBe(200);
    expect(sms.json.data).toMatchObject({ webhook_id: hook.id, pushed: false });
    expect(sms.json.data.report).toMatchObject({
      mobile: "919900112233",
      custom: "c1",
      status: "DELIVRD",
    });
    const call = await raw("POST", "sandbox/calls", {
      webhook_id: hook.id,
      to: "14155550100",
      flow_id: 7,
    });
    expect(call.json.data).toMatchObject({ webhook_id: hook.id, pushed: false });
    expect(call.json.data.report).toMatchObject({ to: 14155550100, flow_id: 7 });
    // The report as pushed by default: documented, so no webhook_id in it.
    expect(call.json.data.report).not.toHaveProperty("webhook_id");
    await sandbox.settled();

    const attempts = await raw("GET", `sandbox/push-attempts?webhook_id=${hook.id}`);
    expect(attempts.json.data).toEqual([
      expect.objectContaining({
        report_id: sms.json.data.report_id,
        report_type: "delivery",
        attempt: 0,
        outcome: "skipped",
      }),
      expect.objectContaining({
        report_id: call.json.data.report_id,
        report_type: "call",
        attempt: 0,
        outcome: "skipped",
      }),
    ]);
    const one = await raw("GET", `sandbox/push-attempts?report_id=${call.json.data.report_id}`);
    expect(one.json.data).toHaveLength(1);
  });

  it("422 for a missing or unknown webhook_id and for bad overrides; 401 without the token", async () => {
    const missing = await raw("POST", "sandbox/sms", {});
    expect(missing.status).toBe(422);
    expect(missing.json.errors).toEqual({ webhook_id: ["The webhook id field is required."] });
    const unknown = await raw("POST", "sandbox/calls", { webhook_id: "nope" });
    expect(unknown.json.errors).toEqual({ webhook_id: ["The selected webhook id is invalid."] });
    const hook = await client.webhooks.create({ name: "x", uri: "https://a.example/", status: 0 });
    const bad = await raw("POST", "sandbox/sms", { webhook_id: hook.id, mobile: "abc", units: -1 });
    expect(Object.keys(bad.json.errors).sort()).toEqual(["mobile", "units"]);
    const anonymous = await raw("POST", "sandbox/sms", { webhook_id: hook.id }, null);
    expect(anonymous.status).toBe(401);
  });
});
