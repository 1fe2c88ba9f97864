// A fetch that answers from a queue of replies and records what it was sent, and a client on it
// whose waits are recorded instead of slept: the client's tests of what it sends and how it
// retries, without a network or a clock.
import { createClientWith } from "../../packages/client/src/create-client.js";
import type { Transport } from "../../packages/client/src/transport.js";

export const TOKEN = "secret-api-token-4242";
export const BASE = "https://api.example.com/api/v2/";

export interface Seen {
  method: string;
  url: string;
  headers: Headers;
  body: string | null;
}

export type Reply = Response | Error | (() => Response | Promise<Response>);

/** A fetch that answers from a queue and records what it was sent. */
export function fakeFetch(...replies: Reply[]) {
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

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export const WIRE = {
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
export function testClient(fetch: typeof globalThis.fetch, overrides: Partial<Transport> = {}) {
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

export function networkError(code: string): TypeError {
  return new TypeError("fetch failed", { cause: Object.assign(new Error(code), { code }) });
}

/**
 * A client (no retries) whose fetch answers each request with the next text, 200 and JSON, and
 * records the URLs asked: the provider's example answers read as the client reads them.
 */
export function textClient(token: string, ...texts: string[]) {
  const urls: string[] = [];
  const fetch = (async (input: string | URL | Request) => {
    urls.push(String(input));
    const text = texts.shift();
    if (text === undefined) throw new Error("textClient: no reply left");
    return new Response(text, { status: 200, headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
  const { client } = testClient(fetch, { token, retries: 0, retryBaseMs: 1, maxRetryDelayMs: 1 });
  return { client, urls };
}
