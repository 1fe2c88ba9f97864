// The client against the documentation's example responses, served byte for byte.
// (See test/fixtures/management-api.ts for how the examples were rebuilt from the spec.)
import { createClient } from "@reportkit/client";
import { describe, expect, it } from "vitest";
import {
  DOC_BASE_URL,
  DOC_CREATE_RESPONSE_TEXT,
  DOC_DELETE_RESPONSE_TEXT,
  DOC_EDIT_RESPONSE_TEXT,
  DOC_LIST_RESPONSE_DECODED_LABELS_TEXT,
  DOC_LIST_RESPONSE_TEXT,
  DOC_SHOW_RESPONSE_TEXT,
  DOC_WEBHOOK_ID,
} from "../fixtures/management-api.js";

function serving(text: string) {
  const requests: { method: string; url: string }[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    requests.push({ method: init?.method ?? "GET", url: String(input) });
    return new Response(text, { status: 200, headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
  return { client: createClient({ baseUrl: DOC_BASE_URL, token: "doc-token", fetch }), requests };
}

const EXPECTED = {
  id: DOC_WEBHOOK_ID,
  name: "Order updates",
  uri: "https://www.domain.com/webhook",
  status: 1,
  active: true,
  secret: "********",
  verificationCode: "********",
  createdAt: new Date("2022-10-19T07:40:13.000Z"),
  updatedAt: new Date("2022-10-19T07:40:13.000Z"),
};

describe("client against the documentation's examples", () => {
  it.each([
    ["HTML-escaped labels (as Laravel emits them)", DOC_LIST_RESPONSE_TEXT],
    ["decoded labels (as field-notes.md shows them)", DOC_LIST_RESPONSE_DECODED_LABELS_TEXT],
  ])("list, %s", async (_, text) => {
    const { client } = serving(text);
    const page = await client.webhooks.list();
    expect(page.data).toEqual([expect.objectContaining(EXPECTED)]);
    expect(page.data[0]?.raw.status).toBe("1");
    expect(page.page).toEqual({
      current: 1,
      last: 1,
      perPage: 15,
      total: 1,
      from: 1,
      to: 1,
      path: "https://api.example.com/api/v2/developer/webhooks",
    });
    expect(page.links).toEqual({
      first: "https://api.example.com/api/v2/developer/webhooks?page=1",
      last: "https://api.example.com/api/v2/developer/webhooks?page=1",
      prev: null,
      next: null,
    });
  });

  it("iterate over the one-page example", async () => {
    const { client, requests } = serving(DOC_LIST_RESPONSE_TEXT);
    const ids = [];
    for await (const webhook of client.webhooks.iterate()) ids.push(webhook.id);
    expect(ids).toEqual([DOC_WEBHOOK_ID]);
    expect(requests).toHaveLength(1);
  });

  it('create: status as the string "1"', async () => {
    const { client, requests } = serving(DOC_CREATE_RESPONSE_TEXT);
    const webhook = await client.webhooks.create({ name: "Order updates", uri: EXPECTED.uri });
    expect(webhook).toMatchObject(EXPECTED);
    expect(requests[0]).toEqual({ method: "POST", url: `${DOC_BASE_URL}developer/webhooks` });
  });

  it("show: status as the integer 1", async () => {
    const { client } = serving(DOC_SHOW_RESPONSE_TEXT);
    const webhook = await client.webhooks.get(DOC_WEBHOOK_ID);
    expect(webhook).toMatchObject(EXPECTED);
    expect(webhook.raw.status).toBe(1);
  });

  it("edit: the updated webhook, inactive", async () => {
    const { client } = serving(DOC_EDIT_RESPONSE_TEXT);
    const webhook = await client.webhooks.update(DOC_WEBHOOK_ID, {
      name: "Order updates v2",
      uri: "https://www.domain.com/webhook/v2",
      status: 0,
    });
    expect(webhook).toMatchObject({
      name: "Order updates v2",
      status: 0,
      active: false,
      updatedAt: new Date("2022-10-20T09:12:45.000Z"),
    });
  });

  it("delete: data is an empty array", async () => {
    const { client, requests } = serving(DOC_DELETE_RESPONSE_TEXT);
    await expect(client.webhooks.delete(DOC_WEBHOOK_ID)).resolves.toBeUndefined();
    expect(requests[0]).toEqual({
      method: "DELETE",
      url: `${DOC_BASE_URL}developer/webhooks/${DOC_WEBHOOK_ID}`,
    });
  });
});
