import { parse as parseQuerystring } from "node:querystring";
import { describe, expect, it } from "vitest";
import { SAMPLE_DLR } from "../../../test/fixtures/samples.js";
import { fromParsedForm } from "./parsed-body.js";

describe("fromParsedForm", () => {
  it("keeps a flat form of strings as it is", () => {
    expect(fromParsedForm({ id: "a:1", status: "DELIVRD", units: "1" })).toEqual({
      id: "a:1",
      status: "DELIVRD",
      units: "1",
    });
  });

  it("keeps the last of repeated keys, as core's own form decoding does", () => {
    expect(fromParsedForm({ status: ["DELIVRD", "UNDELIV"], id: "a" })).toEqual({
      status: "UNDELIV",
      id: "a",
    });
  });

  it("flattens nested objects back to their bracketed keys", () => {
    expect(fromParsedForm({ data: { st: "DELIVRD", ids: ["x", "y"] }, n: 2 })).toEqual({
      "data[st]": "DELIVRD",
      "data[ids]": "y",
      n: "2",
    });
  });

  it("puts back a JSON report a form parser split on & and =", () => {
    const report = { ...SAMPLE_DLR, recording: "https://x.example/r?a=b&c=d" };
    const text = JSON.stringify(report);
    // What Node's querystring (express.urlencoded({ extended: false })) makes of it.
    const parsed = { ...parseQuerystring(text) } as Record<string, unknown>;
    expect(Object.keys(parsed).length).toBeGreaterThan(1);
    expect(fromParsedForm(parsed)).toEqual(report);
  });

  it("leaves a form whose first key only looks like JSON to the form rules", () => {
    expect(fromParsedForm({ "{odd": "1" })).toEqual({ "{odd": "1" });
  });

  it("never pollutes a prototype", () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":"yes"},"id":"a"}');
    const out = fromParsedForm(parsed);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(out, "__proto__[polluted]")).toBe(true);
  });
});
