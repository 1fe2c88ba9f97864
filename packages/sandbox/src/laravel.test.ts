import { describe, expect, it } from "vitest";
import { laravelTimestamp, paginate } from "./laravel.js";

const PATH = "http://127.0.0.1:4010/api/v2/developer/webhooks";
const items = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const labels = (n: number, page: number) =>
  paginate(items(n), page, PATH, []).meta.links.map((l) => l.label);

describe("laravelTimestamp", () => {
  it("writes microseconds and Z like Laravel", () => {
    expect(laravelTimestamp(new Date("2022-10-19T07:40:13Z"))).toBe("2022-10-19T07:40:13.000000Z");
    expect(laravelTimestamp(new Date("2022-10-19T07:40:13.25Z"))).toBe(
      "2022-10-19T07:40:13.250000Z",
    );
  });
});

describe("paginate", () => {
  it("pages by 15 with from/to/last_page/total and page links", () => {
    const result = paginate(items(31), 2, PATH, []);
    expect(result.data).toEqual(items(31).slice(15, 30));
    expect(result.links).toEqual({
      first: `${PATH}?page=1`,
      last: `${PATH}?page=3`,
      prev: `${PATH}?page=1`,
      next: `${PATH}?page=3`,
    });
    expect(result.meta).toMatchObject({
      current_page: 2,
      from: 16,
      to: 30,
      last_page: 3,
      per_page: 15,
      total: 31,
      path: PATH,
    });
    expect(result.meta.links).toEqual([
      { url: `${PATH}?page=1`, label: "&laquo; Previous", active: false },
      { url: `${PATH}?page=1`, label: "1", active: false },
      { url: `${PATH}?page=2`, label: "2", active: true },
      { url: `${PATH}?page=3`, label: "3", active: false },
      { url: `${PATH}?page=3`, label: "Next &raquo;", active: false },
    ]);
  });

  it("gives an empty list one page, null from/to and no prev/next", () => {
    const result = paginate([], 1, PATH, []);
    expect(result.meta).toMatchObject({
      current_page: 1,
      from: null,
      to: null,
      last_page: 1,
      total: 0,
    });
    expect(result.links.prev).toBeNull();
    expect(result.links.next).toBeNull();
  });

  it("keeps the filter in every link, as withQueryString does", () => {
    const result = paginate(items(20), 1, PATH, [["filter[name]", "a b"]]);
    expect(result.links.next).toBe(`${PATH}?filter%5Bname%5D=a+b&page=2`);
  });

  it("windows many pages with '...' like Laravel's UrlWindow", () => {
    const n = 15 * 30; // 30 pages
    expect(labels(n, 1).slice(1, -1)).toEqual([
      ..."1 2 3 4 5 6 7 8 9 10".split(" "),
      "...",
      "29",
      "30",
    ]);
    expect(labels(n, 15).slice(1, -1)).toEqual([
      "1",
      "2",
      "...",
      ..."12 13 14 15 16 17 18".split(" "),
      "...",
      "29",
      "30",
    ]);
    expect(labels(n, 30).slice(1, -1)).toEqual([
      "1",
      "2",
      "...",
      ..."21 22 23 24 25 26 27 28 29 30".split(" "),
    ]);
    expect(labels(15 * 13, 7)).toHaveLength(15); // 13 pages: all shown, plus Previous and Next
  });
});
