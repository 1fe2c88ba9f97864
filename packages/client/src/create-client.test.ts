// createClient: its options, the requests it sends, how it reads responses and errors; on a
// fake fetch that records what it was sent (test/support/client-fakes.ts).
import { describe, expect, it } from "vitest";
import {
  BASE,
  fakeFetch,
  json,
  TOKEN,
  testClient,
  WIRE,
} from "../../../test/support/client-fakes.js";
import { createClient } from "./create-client.js";
import { ApiError, InvalidResponseError } from "./errors.js";

describe("createClient options", () => {
  it("requires a token and never shows it", () => {
    expect(() => createClient({ baseUrl: BASE, token: "" })).toThrow(/token` is required/);
    expect(() => createClient({ baseUrl: BASE, token: "a\nb" })).toThrow(/single line/);
  });

  it("rejects a base URL without the version", () => {
    expect(() => createClient({ baseUrl: "https://api.example.com/", token: TOKEN })).toThrow(
      /must end in \/api\/v2\//,
    );
  });

  it("rejects nonsense numbers", () => {
    expect(() => createClient({ baseUrl: BASE, token: TOKEN, retries: -1 })).toThrow(/retries/);
    expect(() => createClient({ baseUrl: BASE, token: TOKEN, timeoutMs: 0 })).toThrow(/timeoutMs/);
    // Values a timer cannot take would otherwise fail every request later, not here.
    expect(() => createClient({ baseUrl: BASE, token: TOKEN, timeoutMs: 1500.5 })).toThrow(
      /timeoutMs/,
    );
    expect(() => createClient({ baseUrl: BASE, token: TOKEN, timeoutMs: 5e9 })).toThrow(
      /timeoutMs/,
    );
  });

  it("adds the final slash to the base URL", () => {
    const client = createClient({ baseUrl: "https://api.example.com/api/v2", token: TOKEN });
    expect(client.baseUrl).toBe(BASE);
  });
});

describe("requests", () => {
  it("sends Accept, bearer Authorization and a JSON body to the documented paths", async () => {
    const { fetch, seen } = fakeFetch(
      json({ status: "OK", code: 200, message: "Created successfully", data: WIRE }),
      json({ status: "OK", code: 200, message: "OK", data: { ...WIRE, status: 1 } }),
      json({ status: "OK", code: 200, message: "Updated successfully", data: WIRE }),
      json({ status: "OK", code: 200, message: "Deleted successfully", data: [] }),
      json({ status: "OK", code: 200, message: "Created successfully", data: [WIRE] }),
    );
    const { client } = testClient(fetch);
    await client.webhooks.create({
      name: "orders",
      uri: WIRE.uri,
      status: 1,
      secret: "s",
      token: "v",
    });
    await client.webhooks.get(WIRE.id);
    await client.webhooks.update(WIRE.id, { name: "orders", uri: WIRE.uri, status: 0 });
    await client.webhooks.delete(WIRE.id);
    await client.webhooks.list({ name: "ord ers", page: 2 });

    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      `POST ${BASE}developer/webhooks`,
      `GET ${BASE}developer/webhooks/${WIRE.id}`,
      `PUT ${BASE}developer/webhooks/${WIRE.id}`,
      `DELETE ${BASE}developer/webhooks/${WIRE.id}`,
      `GET ${BASE}developer/webhooks?filter%5Bname%5D=ord+ers&page=2`,
    ]);
    for (const s of seen) {
      expect(s.headers.get("accept")).toBe("application/json");
      expect(s.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
    }
    expect(seen[0]?.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(seen[0]?.body ?? "")).toEqual({
      name: "orders",
      uri: WIRE.uri,
      status: 1,
      secret: "s",
      token: "v",
    });
    expect(JSON.parse(seen[2]?.body ?? "")).toEqual({ name: "orders", uri: WIRE.uri, status: 0 });
    expect(seen[1]?.body).toBeNull();
    expect(seen[1]?.headers.get("content-type")).toBeNull();
  });

  it("encodes the id into one path segment", async () => {
    const { fetch, seen } = fakeFetch(json({ data: { ...WIRE, status: 1 } }));
    const { client } = testClient(fetch);
    await client.webhooks.get("../x?y");
    expect(seen[0]?.url).toBe(`${BASE}developer/webhooks/..%2Fx%3Fy`);
  });

  it("refuses an empty id before sending anything", async () => {
    const { fetch, seen } = fakeFetch();
    const { client } = testClient(fetch);
    await expect(client.webhooks.get(" ")).rejects.toThrow(/webhook id is required/);
    expect(seen).toHaveLength(0);
  });
});

describe("responses", () => {
  it("normalizes status sent as a string or a number and parses the timestamps", async () => {
    const { fetch } = fakeFetch(
      json({ data: { ...WIRE, status: "0" } }),
      json({ data: { ...WIRE, status: 1 } }),
    );
    const { client } = testClient(fetch);
    const inactive = await client.webhooks.get(WIRE.id);
    const active = await client.webhooks.get(WIRE.id);
    expect(inactive).toMatchObject({ status: 0, active: false });
    expect(active).toMatchObject({ status: 1, active: true, secret: "********" });
    expect(active.verificationCode).toBe("********");
    expect(active.createdAt?.toISOString()).toBe("2022-10-19T07:40:13.000Z");
  });

  it("keeps unknown fields in raw", async () => {
    const { fetch } = fakeFetch(json({ data: { ...WIRE, method: "POST", headers: { a: 1 } } }));
    const { client } = testClient(fetch);
    const webhook = await client.webhooks.get(WIRE.id);
    expect(webhook.raw).toMatchObject({ method: "POST", headers: { a: 1 }, status: "1" });
  });

  it("names the field when a type is wrong", async () => {
    const { fetch } = fakeFetch(
      json({ data: [WIRE, { ...WIRE, status: "yes", created_at: "soon" }] }),
    );
    const { client } = testClient(fetch);
    const error = await client.webhooks.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    const invalid = error as InvalidResponseError;
    expect(invalid.issues).toEqual([
      expect.stringMatching(/^data\[1\]\.status: expected 0 or 1/),
      expect.stringMatching(/^data\[1\]\.created_at: expected an ISO 8601 timestamp/),
    ]);
    expect(invalid.message).toMatch(/GET developer\/webhooks: unexpected response/);
  });

  it("reports a 2xx body that is not JSON", async () => {
    const { fetch } = fakeFetch(new Response("<html>maintenance</html>", { status: 200 }));
    const { client } = testClient(fetch);
    await expect(client.webhooks.get(WIRE.id)).rejects.toBeInstanceOf(InvalidResponseError);
  });

  it("reads a server that does not paginate as one page", async () => {
    const { fetch } = fakeFetch(json({ data: [WIRE, WIRE] }));
    const { client } = testClient(fetch);
    const page = await client.webhooks.list();
    expect(page.page).toEqual({
      current: 1,
      last: 1,
      perPage: 2,
      total: 2,
      from: 1,
      to: 2,
      path: null,
    });
    expect(page.links).toEqual({ first: null, last: null, prev: null, next: null });
  });
});

describe("errors", () => {
  it("turns a JSON error into an ApiError with status, code, message, errors and body", async () => {
    const body = {
      status: "Error",
      code: 422,
      message: "The name field is required.",
      errors: { name: ["The name field is required."] },
    };
    const { fetch } = fakeFetch(json(body, 422));
    const { client } = testClient(fetch);
    const error = (await client.webhooks
      .create({ name: "", uri: "https://x.example" })
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(422);
    expect(error.code).toBe(422);
    expect(error.body).toEqual(body);
    expect(error.errors).toEqual({ name: ["The name field is required."] });
    expect(error.message).toBe(
      "POST developer/webhooks failed with 422: The name field is required.",
    );
  });

  it("keeps a non-JSON error body as text and falls back to the HTTP status as code", async () => {
    const { fetch } = fakeFetch(
      new Response("upstream exploded", { status: 500, statusText: "Internal Server Error" }),
    );
    const { client } = testClient(fetch);
    const error = (await client.webhooks.get(WIRE.id).catch((e: unknown) => e)) as ApiError;
    expect(error).toMatchObject({ status: 500, code: 500, body: "upstream exploded" });
    expect(error.message).toBe(
      `GET developer/webhooks/${WIRE.id} failed with 500 Internal Server Error: upstream exploded`,
    );
  });

  it("does not paste an HTML error page into the message", async () => {
    const { fetch } = fakeFetch(new Response("<html><body>Bad</body></html>", { status: 500 }));
    const { client } = testClient(fetch);
    const error = (await client.webhooks.get(WIRE.id).catch((e: unknown) => e)) as ApiError;
    expect(error.message).toBe(`GET developer/webhooks/${WIRE.id} failed with 500`);
    expect(error.body).toBe("<html><body>Bad</body></html>");
  });

  it("keeps an empty error body as undefined", async () => {
    const { fetch } = fakeFetch(new Response(null, { status: 404 }));
    const { client } = testClient(fetch);
    const error = (await client.webhooks.get(WIRE.id).catch((e: unknown) => e)) as ApiError;
    expect(error).toMatchObject({ status: 404, code: 404, body: undefined });
  });

  it("says to check the token on 401, and never shows the token even if the server echoes it", async () => {
    const { fetch } = fakeFetch(
      json({ message: `Token ${TOKEN} is not valid.` }, 401, { "www-authenticate": "Bearer" }),
    );
    const { client } = testClient(fetch);
    const error = (await client.webhooks.list().catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(401);
    expect(error.message).toMatch(/Check the access token/);
    expect(error.message).not.toContain(TOKEN);
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain(`Bearer ${TOKEN}`);
  });

  it("never shows the token from echoed field errors", async () => {
    const { fetch } = fakeFetch(json({ errors: { token: [`token ${TOKEN} is invalid`] } }, 422));
    const { client } = testClient(fetch);
    const error = (await client.webhooks.list().catch((e: unknown) => e)) as ApiError;
    expect(error.message).toBe("GET developer/webhooks failed with 422: token [token] is invalid");
  });

  it("never shows part of the token where a long message is cut", async () => {
    const { fetch } = fakeFetch(json({ message: `${"x".repeat(290)} ${TOKEN}` }, 400));
    const { client } = testClient(fetch);
    const error = (await client.webhooks.list().catch((e: unknown) => e)) as ApiError;
    expect(error.message).toContain("[token]");
    expect(error.message).not.toContain(TOKEN.slice(0, 6));
  });
});
