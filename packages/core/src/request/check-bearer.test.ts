import { describe, expect, it } from "vitest";
import { checkBearer, timingSafeEqual } from "./check-bearer.js";

describe("timingSafeEqual", () => {
  it.each([
    ["same", "same", true],
    ["same", "sane", false],
    ["short", "shorter", false],
    ["longer-one", "longer", false],
    ["", "", true],
    // Characters outside the BMP are two UTF-16 units; both sides are compared unit by unit.
    ["t😀k", "t😀k", true],
    ["t😀k", "t😁k", false],
  ])("%j vs %j: %s", (actual, expected, equal) => {
    expect(timingSafeEqual(actual, expected)).toBe(equal);
  });
});

describe("checkBearer", () => {
  it("accepts any of several tokens, in any scheme case, with one trailing comma", () => {
    const check = checkBearer(["new-token", "old-😀"]);
    expect(check("Bearer new-token")).toBe("ok");
    expect(check("bearer old-😀")).toBe("ok");
    expect(check("Bearer new-token,")).toBe("ok");
    expect(check("Bearer new-tokens")).toBe("invalid");
    expect(check("Bearer  new-token ")).toBe("ok");
    // Another scheme, or none: a credential, but not a Bearer one (the reply says so).
    expect(check("Basic new-token")).toBe("not_bearer");
    expect(check("new-token")).toBe("not_bearer");
    expect(check("Bearer")).toBe("missing");
    expect(check(undefined)).toBe("missing");
  });

  it("compares a custom header's whole value", () => {
    const check = checkBearer("k-1", "x-api-key");
    expect(check("k-1")).toBe("ok");
    expect(check(" k-1 ")).toBe("ok");
    expect(check("k-1,")).toBe("invalid");
    expect(check("Bearer k-1")).toBe("invalid");
    expect(check("")).toBe("missing");
  });
});
