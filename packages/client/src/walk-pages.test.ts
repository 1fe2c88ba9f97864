// iterate(): walking the pages of a list, through a client on a fake fetch
// (test/support/client-fakes.ts).
import { describe, expect, it } from "vitest";
import { fakeFetch, json, testClient, WIRE } from "../../../test/support/client-fakes.js";

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
