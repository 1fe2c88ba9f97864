import { describe, expect, it } from "vitest";
import { formatOf, REPORT_MEDIA_TYPES, readsAsText } from "./media-type.js";

describe("readsAsText", () => {
  it.each([
    ["application/json", true],
    [undefined, true],
    ["application/json; charset=utf-8", true],
    ['text/plain; charset="UTF-8"', true],
    ["application/x-www-form-urlencoded", true],
    ["application/vnd.api+json", true],
    ["application/json; charset=iso-8859-1", false],
    ["text/plain;charset=windows-1252", false],
    ["multipart/form-data; boundary=x", false],
    ["Multipart/Form-Data; boundary=x", false],
  ])("%s: %s", (contentType, text) => {
    expect(readsAsText(contentType)).toBe(text);
  });
});

describe("REPORT_MEDIA_TYPES", () => {
  it("are the media types core reads, each with a format", () => {
    expect([...REPORT_MEDIA_TYPES].sort()).toEqual([
      "application/json",
      "application/x-www-form-urlencoded",
      "multipart/form-data",
      "text/json",
      "text/plain",
    ]);
    expect(Object.fromEntries(REPORT_MEDIA_TYPES.map((type) => [type, formatOf(type)]))).toEqual({
      "application/json": "json",
      "text/json": "json",
      "text/plain": "json",
      "application/x-www-form-urlencoded": "urlencoded",
      "multipart/form-data": "multipart",
    });
  });

  it("reads any +json type as JSON and knows no other", () => {
    expect(formatOf("application/vnd.api+json")).toBe("json");
    expect(formatOf("")).toBe("json");
    expect(formatOf("application/xml")).toBeUndefined();
    expect(formatOf("text/html")).toBeUndefined();
  });
});
