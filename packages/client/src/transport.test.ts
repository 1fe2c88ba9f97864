// The transport's retries (which statuses, how long it waits, Retry-After, the timeout), through
// a client on a fake fetch whose waits are recorded instead of slept (test/support/client-fakes.ts).
import { describe, expect, it } from "vitest";
import {
  fakeFetch,
  json,
  networkError,
  testClient,
  WIRE,
} from "../../../test/support/client-fakes.js";
import { ApiError, RequestFailedError } from "./errors.js";

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
