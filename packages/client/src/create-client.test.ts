import { describe, expect, it } from "vitest";
import { createClient, createClientWith } from "./create-client.js";
import { ApiError, InvalidResponseError, RequestFailedError } from "./errors.js";
import type { Transport } from "./transport.js";

const TOKEN = "secret-api-token-4242";
const BASE = "https://api.example.com/api/v2/";

interface Seen {
  method: string;
  url: string;
  headers: Headers;
  body: string | null;
}

type Reply = Response | Error | (() => Response | Promise<Response>);

/** A fetch that answers from a queue and records what it was sent. */
function fakeFetch(...replies: Reply[]) {
  const seen: Seen[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    seen.push({
      method: init?.method ?? "GET",
      url: String(input),
      headers: new Headers(init?.headers),
      body: typeof init?.body === "string" ? init.body : null,
    });
    const reply = replies.shift();
    if (reply === undefined) throw new Error("fakeFetch: no reply left");
    if (reply instanceof Error) throw reply;
    return typeof reply === "function" ? reply() : reply;
  }) as typeof globalThis.fetch;
  return { fetch, seen };
}

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

const WIRE = {
  id: "9a7b4c2e-3f1d-4e5a-8b6c-0d9e8f7a6b5c",
  name: "orders",
  uri: "https://my.app/reports",
  secret: "********",
  verification_code: "********",
  status: "1",
  created_at: "2022-10-19T07:40:13.000000Z",
  updated_at: "2022-10-19T07:40:13.000000Z",
};

/** A client whose waits are recorded instead of slept. */
function testClient(fetch: typeof globalThis.fetch, overrides: Partial<Transport> = {}) {
  const waits: number[] = [];
  const client = createClientWith({
    baseUrl: BASE,
    token: TOKEN,
    fetch,
    timeoutMs: 1000,
    maxResponseBytes: 1_048_576,
    retries: 3,
    retryBaseMs: 100,
    maxRetryDelayMs: 1000,
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 1,
    ...overrides,
  });
  return { client, waits };
}

function networkError(code: string): TypeError {
  return new TypeError("fetch failed", { cause: Object.assign(new Error(code), { code }) });
}

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

describe("retries", () => {
  it.each([429, 502, 503, 504])(
    "retries a GET on %i with capped exponential backoff",
    async (status) => {
      const { fetch, seen } = fakeFetch(
        json({ message: "busy" }, status),
        json({ message: "busy" }, status),
        json({ message: "busy" }, status),
        json({ data: { ...WIRE, status: 1 } }),
      );
      const { client, waits } = testClient(fetch, { retryBaseMs: 400, maxRetryDelayMs: 1000 });
      await expect(client.webhooks.get(WIRE.id)).resolves.toMatchObject({ id: WIRE.id });
      expect(seen).toHaveLength(4);
      expect(waits).toEqual([400, 800, 1000]);
    },
  );

  it("jitters each wait between half and all of its step", async () => {
    const { fetch } = fakeFetch(json({}, 503), json({}, 503), json({ data: [] }));
    const { client, waits } = testClient(fetch, { random: () => 0, retryBaseMs: 100 });
    await client.webhooks.list();
    expect(waits).toEqual([50, 100]);
  });

  it("gives up after `retries` and throws the last ApiError", async () => {
    const { fetch, seen } = fakeFetch(
      json({ message: "down" }, 503),
      json({ message: "down" }, 503),
      json({ message: "still down" }, 503),
    );
    const { client } = testClient(fetch, { retries: 2 });
    const error = (await client.webhooks.list().catch((e: unknown) => e)) as ApiError;
    expect(seen).toHaveLength(3);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toMatch(/still down/);
  });

  it("honours Retry-After in seconds and as an HTTP date", async () => {
    const inTwoSeconds = new Date(Date.now() + 2000).toUTCString();
    const { fetch } = fakeFetch(
      json({}, 429, { "retry-after": "1" }),
      json({}, 503, { "retry-after": inTwoSeconds }),
      json({ data: [] }),
    );
    const { client, waits } = testClient(fetch, { maxRetryDelayMs: 5000 });
    await client.webhooks.list();
    expect(waits[0]).toBe(1000);
    expect(waits[1]).toBeGreaterThan(0);
    expect(waits[1]).toBeLessThanOrEqual(2000);
  });

  it("does not wait for a Retry-After beyond the cap: it reports it", async () => {
    const { fetch, seen } = fakeFetch(
      json({ message: "slow down" }, 429, { "retry-after": "3600" }),
    );
    const { client, waits } = testClient(fetch, { maxRetryDelayMs: 30_000 });
    const error = (await client.webhooks.list().catch((e: unknown) => e)) as ApiError;
    expect(seen).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(error.retryAfterSeconds).toBe(3600);
    expect(error.message).toMatch(/retry after 3600 s/);
  });

  it("retries PUT and DELETE, on network errors too", async () => {
    const { fetch, seen } = fakeFetch(
      networkError("ECONNRESET"),
      json({ data: WIRE }),
      json({}, 502),
      json({ data: [] }),
    );
    const { client } = testClient(fetch);
    await client.webhooks.update(WIRE.id, { name: "n", uri: WIRE.uri });
    await client.webhooks.delete(WIRE.id);
    expect(seen.map((s) => s.method)).toEqual(["PUT", "PUT", "DELETE", "DELETE"]);
  });

  it("never retries a POST: a lost response could mean the webhook exists", async () => {
    const { fetch, seen } = fakeFetch(json({ message: "busy" }, 503), networkError("ECONNRESET"));
    const { client } = testClient(fetch);
    await expect(client.webhooks.create({ name: "n", uri: WIRE.uri })).rejects.toBeInstanceOf(
      ApiError,
    );
    await expect(client.webhooks.create({ name: "n", uri: WIRE.uri })).rejects.toBeInstanceOf(
      RequestFailedError,
    );
    expect(seen).toHaveLength(2);
  });

  it("does not retry other statuses (400, 401, 404, 500)", async () => {
    for (const status of [400, 401, 404, 500]) {
      const { fetch, seen } = fakeFetch(json({}, status));
      const { client } = testClient(fetch);
      await expect(client.webhooks.list()).rejects.toMatchObject({ status });
      expect(seen).toHaveLength(1);
    }
  });

  it("reports a network failure after the retries, naming the host and the reason", async () => {
    const { fetch, seen } = fakeFetch(
      networkError("ECONNREFUSED"),
      networkError("ECONNREFUSED"),
      networkError("ECONNREFUSED"),
    );
    const { client } = testClient(fetch, { retries: 2 });
    const error = (await client.webhooks.list().catch((e: unknown) => e)) as RequestFailedError;
    expect(seen).toHaveLength(3);
    expect(error).toBeInstanceOf(RequestFailedError);
    expect(error).toMatchObject({ timedOut: false, attempts: 3 });
    expect(error.message).toBe(
      "GET developer/webhooks failed: could not reach api.example.com (ECONNREFUSED) (after 3 attempts).",
    );
  });

  it("abandons an attempt after timeoutMs", async () => {
    const hanging = (async (_: unknown, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
      })) as typeof globalThis.fetch;
    const { client } = testClient(hanging, { timeoutMs: 30, retries: 1 });
    const error = (await client.webhooks.list().catch((e: unknown) => e)) as RequestFailedError;
    expect(error).toBeInstanceOf(RequestFailedError);
    expect(error).toMatchObject({ timedOut: true, attempts: 2 });
    expect(error.message).toMatch(/no response within 30 ms/);
  });
});

describe("iterate", () => {
  it("walks every page by number, with the same filter", async () => {
    const page = (current: number, last: number, ids: string[]) =>
      json({
        data: ids.map((id) => ({ ...WIRE, id })),
        links: { first: "x", last: "x", prev: null, next: null },
        meta: {
          current_page: current,
          from: 1,
          to: ids.length,
          last_page: last,
          per_page: 15,
          total: 5,
        },
      });
    const { fetch, seen } = fakeFetch(
      page(1, 3, ["a", "b"]),
      page(2, 3, ["c", "d"]),
      page(3, 3, ["e"]),
    );
    const { client } = testClient(fetch);
    const ids: string[] = [];
    for await (const webhook of client.webhooks.iterate({ name: "x" })) ids.push(webhook.id);
    expect(ids).toEqual(["a", "b", "c", "d", "e"]);
    expect(seen.map((s) => new URL(s.url).search)).toEqual([
      "?filter%5Bname%5D=x&page=1",
      "?filter%5Bname%5D=x&page=2",
      "?filter%5Bname%5D=x&page=3",
    ]);
  });

  it("stops on an empty page even if the server claims more", async () => {
    const { fetch, seen } = fakeFetch(
      json({
        data: [],
        meta: { current_page: 1, from: null, to: null, last_page: 9, per_page: 15, total: 0 },
      }),
    );
    const { client } = testClient(fetch);
    const all = [];
    for await (const webhook of client.webhooks.iterate()) all.push(webhook);
    expect(all).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  it("stops with an error when the server ignores the page asked for", async () => {
    const pageOne = () =>
      json({
        data: [{ ...WIRE, id: "a" }],
        meta: { current_page: 1, from: 1, to: 1, last_page: 3, per_page: 15, total: 3 },
      });
    const { fetch, seen } = fakeFetch(pageOne(), pageOne(), pageOne());
    const { client } = testClient(fetch);
    const ids: string[] = [];
    const iterating = (async () => {
      for await (const webhook of client.webhooks.iterate()) ids.push(webhook.id);
    })();
    await expect(iterating).rejects.toThrow(/asked for page 2, got 1/);
    expect(ids).toEqual(["a"]);
    expect(seen).toHaveLength(2);
  });

  it("refuses a page below 1", async () => {
    const { fetch } = fakeFetch();
    const { client } = testClient(fetch);
    await expect(client.webhooks.list({ page: 0 })).rejects.toThrow(/page/);
  });
});
