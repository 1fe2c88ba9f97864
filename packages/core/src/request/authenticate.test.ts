import { describe, expect, it } from "vitest";
import { comparerOf, secretCheck, tokenParameter } from "./authenticate.js";

describe("comparerOf", () => {
  it.each([
    ["same", "same", true],
    ["same", "sane", false],
    ["short", "shorter", false],
    ["longer-one", "longer", false],
    ["", "x", false],
    // Characters outside the BMP are two UTF-16 units; both sides are compared unit by unit.
    ["t😀k", "t😀k", true],
    ["t😀k", "t😁k", false],
  ])("%j vs %j: %s", (actual, expected, equal) => {
    expect(comparerOf(expected)(actual)).toBe(equal);
  });

  it("does the same work for a presented text whatever the expected one's length (no length leak)", () => {
    // The loop runs over the presented characters only, reading the expected ones in a cycle:
    // counted here by the reads of the presented text, the same for every expected length.
    for (const expected of ["k", "sixteen-chars-ok", "x".repeat(300)]) {
      let reads = 0;
      const presented = "p".repeat(40);
      const counting = {
        length: presented.length,
        charCodeAt(i: number) {
          reads += 1;
          return presented.charCodeAt(i);
        },
      } as unknown as string;
      comparerOf(expected)(counting);
      expect(reads, expected).toBe(40);
    }
  });
});

describe("secretCheck", () => {
  it("accepts any of several secrets, in any scheme case, with one trailing comma", () => {
    const check = secretCheck(["new-token", "old-😀"]);
    expect(check("Bearer new-token", undefined)).toBe("ok");
    expect(check("bearer old-😀", undefined)).toBe("ok");
    expect(check("Bearer new-token,", undefined)).toBe("ok");
    expect(check("Bearer new-tokens", undefined)).toBe("invalid");
    expect(check("Bearer  new-token ", undefined)).toBe("ok");
    // Another scheme, or none: a credential, but not a Bearer one (the reply says so).
    expect(check("Basic new-token", undefined)).toBe("not_bearer");
    expect(check("new-token", undefined)).toBe("not_bearer");
    expect(check("Bearer", undefined)).toBe("missing");
    expect(check(undefined, undefined)).toBe("missing");
  });

  it("compares a custom header's whole value", () => {
    const check = secretCheck("k-1", "x-api-key");
    expect(check("k-1", undefined)).toBe("ok");
    expect(check(" k-1 ", undefined)).toBe("ok");
    expect(check("k-1,", undefined)).toBe("invalid");
    expect(check("Bearer k-1", undefined)).toBe("invalid");
    expect(check("", undefined)).toBe("missing");
  });
});

describe("tokenParameter", () => {
  it("reads the verification's ?token=, never an empty one", () => {
    expect(tokenParameter("/webhooks?token=9012XX")).toBe("9012XX");
    expect(tokenParameter("https://x.example/w?a=1&token=k%2B1#f")).toBe("k+1");
    expect(tokenParameter("/webhooks?token=")).toBeUndefined();
    expect(tokenParameter("/webhooks")).toBeUndefined();
  });
});
