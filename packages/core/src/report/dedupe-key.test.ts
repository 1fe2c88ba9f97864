// A report's default key: a delivery report's by id and status; a call report's with a hash of
// the callee, never the number (a key is in log lines, journal keys, Redis key names, the CLI's
// tables). The hash is SHA-256, checked against WebCrypto's, so a key can be computed elsewhere.
import { describe, expect, it } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR } from "../../../../test/fixtures/samples.js";
import { calleeHash, defaultDedupeKey } from "./dedupe-key.js";
import { parseReport } from "./parse-report.js";
import type { Report } from "./schemas.js";
import { sha256Hex } from "./sha256.js";

function reportOf(payload: Record<string, unknown>) {
  const result = parseReport(payload);
  if (!result.ok) throw new Error(`expected a report, got ${result.error.message}`);
  return result.report;
}

async function webCryptoHex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("sha256Hex", () => {
  it("gives the published digests of the empty string and 'abc'", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });

  it("agrees with WebCrypto on every length around the block edges, and on non-ASCII text", async () => {
    const texts = Array.from({ length: 140 }, (_, n) => "9".repeat(n));
    // A long text grows the reused scratch block; the short ones after it must not see its bytes.
    texts.push("ü€😀 +91 98765 43210", "x".repeat(10_000), "919876543210", "", "ü");
    for (const text of texts) expect(sha256Hex(text), text).toBe(await webCryptoHex(text));
  });
});

describe("defaultDedupeKey", () => {
  it("keys a delivery report by its id and status, as before", () => {
    expect(defaultDedupeKey(reportOf(SAMPLE_DLR))).toBe(
      "delivery:b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1:DELIVRD",
    );
  });

  it("keys a call report by mid, a hash of the callee, status and start; never the number", () => {
    const report = reportOf(SAMPLE_CALL);
    const key = defaultDedupeKey(report) as string;
    const number = String(SAMPLE_CALL.to);
    expect(key).toBe(
      `call:${SAMPLE_CALL.mid}:${calleeHash(number)}:ANSWER:${Date.parse("2021-04-09T10:57:51Z")}`,
    );
    expect(calleeHash(number)).toBe(sha256Hex(number).slice(0, 16));
    expect(key).not.toContain(number);
    // Another callee of the same campaign message, status and start is another report.
    expect(defaultDedupeKey(reportOf({ ...SAMPLE_CALL, to: 919876543211 }))).not.toBe(key);
  });

  it("leaves the callee's place empty without a callee, and gives no key without a mid", () => {
    const { to: _to, ...noCallee } = SAMPLE_CALL;
    expect(defaultDedupeKey(reportOf(noCallee))).toBe(
      `call:${SAMPLE_CALL.mid}::ANSWER:${Date.parse("2021-04-09T10:57:51Z")}`,
    );
    // A composed template may leave `mid` out (then `webhook_id` identifies the call).
    expect(defaultDedupeKey({ ...reportOf(SAMPLE_CALL), mid: null } as Report)).toBeUndefined();
  });
});
