import { describe, expect, it } from "vitest";
import { formatOf, mediaType, REPORT_MEDIA_TYPES } from "./read-body.js";

describe("mediaType", () => {
  it.each([
    ["application/json", "application/json"],
    [undefined, ""],
    ["Application/JSON; charset=UTF-8", "application/json"],
    [' text/plain ; charset="UTF-8"', "text/plain"],
    ["Multipart/Form-Data; boundary=x", "multipart/form-data"],
  ])("%s: %s", (contentType, type) => {
    expect(mediaType(contentType)).toBe(type);
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
