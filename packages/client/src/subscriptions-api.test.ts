// Event subscriptions through the client, answered with the provider's own examples (verbatim
// from v2/subscriptions/index.md and v2/sms/subscription.md).
import { describe, expect, it } from "vitest";
import {
  DOC_SUBSCRIPTION_CREATE_SMS_RESPONSE_TEXT,
  DOC_SUBSCRIPTION_DELETE_RESPONSE_TEXT,
  DOC_SUBSCRIPTION_LIST_RESPONSE_TEXT,
  DOC_SUBSCRIPTION_SHOW_RESPONSE_TEXT,
} from "../../../test/fixtures/pull-api.js";
import { testClient } from "../../../test/support/client-fakes.js";
import { ApiError } from "./errors.js";

const TOKEN = "subscriptions-token-8080";
const BASE = "https://api.example.com/api/v2/";

interface Seen {
  method: string;
  url: string;
  body: string | null;
}

/** A fetch answering with the given statuses and texts, recording each request. */
function fetchOf(...replies: [number, string][]) {
  const seen: Seen[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    seen.push({
      method: init?.method ?? "GET",
      url: String(input),
      body: typeof init?.body === "string" ? init.body : null,
    });
    const [status, text] = replies.shift() ?? [599, ""];
    return new Response(text, { status, headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
  const { client } = testClient(fetch, {
    token: TOKEN,
    retries: 2,
    retryBaseMs: 1,
    maxRetryDelayMs: 1,
  });
  return { client, seen };
}

const withEndpoint = (text: string) => text.replaceAll("{endpoint}", BASE);

describe("subscriptions", () => {
  it("creates one with event, identity and webhook_id, payload [] as served", async () => {
    const { client, seen } = fetchOf([200, DOC_SUBSCRIPTION_CREATE_SMS_RESPONSE_TEXT]);
    const created = await client.subscriptions.create({
      event: "sms:message:status",
      identity: "all",
      webhookId: "dd4b91af-167d-48e6-901d-ae181ff6e80d",
    });
    expect(seen).toEqual([
      {
        method: "POST",
        url: `${BASE}developer/subscriptions`,
        body: '{"event":"sms:message:status","identity":"all","webhook_id":"dd4b91af-167d-48e6-901d-ae181ff6e80d"}',
      },
    ]);
    const { raw: _, ...subscription } = created;
    expect(subscription).toEqual({
      id: "3",
      event: "sms:message:status",
      identity: "all",
      payload: [],
      webhookId: "dd4b91af-167d-48e6-901d-ae181ff6e80d",
      createdAt: new Date("2022-12-07T06:20:09.000Z"),
    });
  });

  it("lists them (payload null, a webhook_id that is no UUID) and walks the pages", async () => {
    const { client, seen } = fetchOf(
      [200, withEndpoint(DOC_SUBSCRIPTION_LIST_RESPONSE_TEXT)],
      [200, withEndpoint(DOC_SUBSCRIPTION_LIST_RESPONSE_TEXT)],
    );
    const page = await client.subscriptions.list();
    expect(page.data.map((s) => [s.id, s.identity, s.webhookId, s.payload])).toEqual([
      ["2", "keyword:1", "flow:1", null],
      ["1", "number:1", "flow:2", null],
    ]);
    expect(page.page).toMatchObject({ current: 1, last: 1, perPage: 15, total: 2 });
    const all = [];
    for await (const s of client.subscriptions.iterate()) all.push(s.id);
    expect(all).toEqual(["2", "1"]);
    expect(seen.map((s) => s.url)).toEqual([
      `${BASE}developer/subscriptions`,
      `${BASE}developer/subscriptions?page=1`,
    ]);
  });

  it("shows and deletes one by its id, a number or text", async () => {
    const { client, seen } = fetchOf(
      [200, DOC_SUBSCRIPTION_SHOW_RESPONSE_TEXT],
      [200, DOC_SUBSCRIPTION_DELETE_RESPONSE_TEXT],
    );
    expect((await client.subscriptions.get(2)).event).toBe("vmn:message:in");
    await expect(client.subscriptions.delete("2")).resolves.toBeUndefined();
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      `GET ${BASE}developer/subscriptions/2`,
      `DELETE ${BASE}developer/subscriptions/2`,
    ]);
  });

  it("never retries a create (a lost answer may mean it exists); retries a get", async () => {
    const { client, seen } = fetchOf(
      [503, '{"message":"busy"}'],
      [503, '{"message":"busy"}'],
      [200, DOC_SUBSCRIPTION_SHOW_RESPONSE_TEXT],
    );
    const input = { event: "sms:message:status", identity: "all", webhookId: "w" };
    await expect(client.subscriptions.create(input)).rejects.toBeInstanceOf(ApiError);
    expect(seen).toHaveLength(1);
    await expect(client.subscriptions.get("2")).resolves.toMatchObject({ id: "2" });
    expect(seen).toHaveLength(3);
  });

  it("refuses a create without its three fields, and an empty id, before sending", async () => {
    const { client, seen } = fetchOf();
    await expect(
      client.subscriptions.create({ event: "sms:message:status", identity: "", webhookId: "w" }),
    ).rejects.toThrow("subscriptions.create: `identity` is required");
    await expect(client.subscriptions.get(" ")).rejects.toThrow("a subscription id is required");
    expect(seen).toEqual([]);
  });
});
