import { describe, expect, it } from "vitest";
import { describeJsonError, jsonErrorOffset } from "./parse-json.js";

describe("jsonErrorOffset", () => {
  it("agrees with JSON.parse on what is JSON", () => {
    const valid = [
      "{}",
      "[]",
      ' { "a" : [1, -2.5e+3, true, false, null, "x\\u00e9\\n\\"", {"b": {}}] } ',
      "0",
      '"text"',
    ];
    for (const text of valid) {
      expect(() => JSON.parse(text)).not.toThrow();
      expect(jsonErrorOffset(text)).toBe(-1);
    }
  });

  it("finds the first character that is not JSON, or the end", () => {
    expect(jsonErrorOffset("id=1&&&")).toBe(0);
    expect(jsonErrorOffset('{"a":x}')).toBe(5);
    expect(jsonErrorOffset('{"a":1} zz')).toBe(8);
    expect(jsonErrorOffset('{"a":"\u0007"}')).toBe(6);
    expect(jsonErrorOffset('{"a":')).toBe(5);
    expect(jsonErrorOffset('{"a":tru}')).toBe(8);
    expect(jsonErrorOffset('{"a":"\\q"}')).toBe(7);
    expect(jsonErrorOffset("[1,2]]")).toBe(5);
  });

  it("accepts a comma before a closing bracket, as the lenient parse repairs it", () => {
    expect(jsonErrorOffset('{"a": [1, 2,], }')).toBe(-1);
  });

  it("handles any depth without recursion", () => {
    expect(jsonErrorOffset(`${"[".repeat(200_000)}${"]".repeat(200_000)}`)).toBe(-1);
    expect(jsonErrorOffset("[".repeat(200_000))).toBe(200_000);
  });
});

describe("describeJsonError", () => {
  it("names line, column and code point, never the bytes around them", () => {
    expect(describeJsonError('{"a": 1,\n "b": \u001b]0;x\u0007}')).toBe(
      "unexpected U+001B at line 2, column 7 (character 16)",
    );
    expect(describeJsonError("{x")).toBe("unexpected 'x' at line 1, column 2 (character 2)");
    expect(describeJsonError('{"a":')).toBe("the body ends before the JSON is complete");
  });
});
