import { describe, expect, it } from "vitest";
import { normalizeBaseUrl } from "./base-url.js";

describe("normalizeBaseUrl", () => {
  it("keeps a base that ends in /api/v2/", () => {
    expect(normalizeBaseUrl("https://api.example.com/api/v2/")).toBe(
      "https://api.example.com/api/v2/",
    );
  });

  it("adds the missing final slash, so paths keep the version segment", () => {
    expect(normalizeBaseUrl("http://127.0.0.1:4010/api/v2")).toBe("http://127.0.0.1:4010/api/v2/");
    expect(normalizeBaseUrl("  https://brand.example/sms/api/v2  ")).toBe(
      "https://brand.example/sms/api/v2/",
    );
  });

  it.each([
    ["https://api.example.com/", /must end in \/api\/v2\//],
    ["https://api.example.com/api/v1/", /must end in \/api\/v2\//],
    ["api.example.com/api/v2/", /not an absolute URL/],
    ["ftp://api.example.com/api/v2/", /http or https/],
    ["https://api.example.com/api/v2/?x=1", /query string/],
    ["", /is required/],
  ])("rejects %j with a clear reason", (input, reason) => {
    expect(() => normalizeBaseUrl(input)).toThrow(reason);
  });

  it("never echoes credentials embedded in the URL", () => {
    let message = "";
    try {
      normalizeBaseUrl("https://user:hunter2@api.example.com/api/v1/");
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/must end in/);
    expect(message).not.toContain("hunter2");
  });
});
