// The key a store keeps: a key any store can hold as it is stays as it is; any other (NUL, a
// lone surrogate, too long, or one that looks hashed) is kept by its SHA-256, one per string.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { listedKey, MAX_KEY_BYTES, storedKey } from "./internal.js";

const HASHED = /^key-sha256:[0-9a-f]{64}$/;

describe("storedKey", () => {
  it("keeps a key as it is when every store can hold it, up to MAX_KEY_BYTES of UTF-8", async () => {
    for (const key of [
      "delivery:b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1:DELIVRD",
      "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
      "call:m-1:\u0007\n:ANSWER:", // control characters other than NUL are text to Postgres
      "émoji 😀 key",
      "x".repeat(MAX_KEY_BYTES),
      "é".repeat(MAX_KEY_BYTES / 2),
    ]) {
      expect(await storedKey(key)).toBe(key);
    }
  });

  it("keeps any other key by the SHA-256 of its UTF-8 (WTF-8) bytes, never truncated", async () => {
    const long = "x".repeat(MAX_KEY_BYTES + 1);
    const wide = "é".repeat(MAX_KEY_BYTES / 2 + 1);
    for (const key of [long, wide, "nul\u0000id", "key-sha256:mine"]) {
      const kept = await storedKey(key);
      expect(kept).toMatch(HASHED);
      expect(kept).toBe(`key-sha256:${createHash("sha256").update(key, "utf8").digest("hex")}`);
    }
    // Two long keys that differ only past the bound stay two keys.
    expect(await storedKey(`${long}a`)).not.toBe(await storedKey(`${long}b`));
  });

  it("keeps keys that differ only in a lone surrogate apart (UTF-8 would make both U+FFFD)", async () => {
    const keys = ["sur\ud800", "sur\udbff", "sur\udc00", "sur\ufffd", "\udc00\ud800", "\ud800"];
    const kept = await Promise.all(keys.map(storedKey));
    expect(new Set(kept).size).toBe(keys.length);
    expect(kept.slice(0, 3).every((k) => HASHED.test(k))).toBe(true);
    // A well-formed pair is not a lone surrogate: kept as it is.
    expect(await storedKey("pair \ud83d\ude00")).toBe("pair 😀");
    // WTF-8: the lone surrogate's code point as three bytes.
    expect(await storedKey("sur\ud800")).toBe(
      `key-sha256:${createHash("sha256")
        .update(Buffer.from([0x73, 0x75, 0x72, 0xed, 0xa0, 0x80]))
        .digest("hex")}`,
    );
  });
});

describe("listedKey", () => {
  it("is a hashed key as it was listed, and storedKey of any other", async () => {
    const hashed = await storedKey("nul\u0000id");
    expect(await listedKey(hashed)).toBe(hashed);
    expect(await listedKey("nul\u0000id")).toBe(hashed);
    expect(await listedKey("delivery:m-1:DELIVRD")).toBe("delivery:m-1:DELIVRD");
  });
});
