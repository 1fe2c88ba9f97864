// A report's default key: a delivery report's by id and status; a call report's with a hash of
// the callee, never the number (a key is in log lines, journal keys, Redis key names, the CLI's
// tables). The hash is SHA-256, checked against WebCrypto's, so a key can be computed elsewhere.
import { describe, expect, it } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR } from "../../../../test/fixtures/samples.js";
import { calleeHash, defaultDedupeKey } from "./dedupe-key.js";
import { parseReport } from "./parse-report.js";
import type { Report } from "./schemas.js";

function reportOf(payload: Record<string, unknown>) {
  const result = parseReport(payload);
  if (!result.ok) throw new Error(`expected a report, got ${result.error.message}`);
  return result.report;
}

async function webCryptoHex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("calleeHash", () => {
  it("is the first 16 hex digits of the number's SHA-256, as WebCrypto (and SQL) computes it", async () => {
    for (const text of ["919876543210", "", "ü€😀 +91 98765 43210", "x".repeat(10_000)]) {
      expect(calleeHash(text), text).toBe((await webCryptoHex(text)).slice(0, 16));
    }
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
    expect(key).not.toContain(number);
    // Another callee of the same campaign message, status and start is another report.
    expect(defaultDedupeKey(reportOf({ ...SAMPLE_CALL, to: 919876543211 }))).not.toBe(key);
  });

  it("leaves the callee's place empty without a callee", () => {
    const { to: _to, ...noCallee } = SAMPLE_CALL;
    expect(defaultDedupeKey(reportOf(noCallee))).toBe(
      `call:${SAMPLE_CALL.mid}::ANSWER:${Date.parse("2021-04-09T10:57:51Z")}`,
    );
  });

  it("keys a call without a mid (a Click2Call) by a hash of its numbers, its status and its start", () => {
    const call = { ...reportOf(SAMPLE_CALL), mid: null } as Report;
    const numbers = `${SAMPLE_CALL.bridge}|${SAMPLE_CALL.from}|${SAMPLE_CALL.to}`;
    expect(defaultDedupeKey(call)).toBe(
      `call::${calleeHash(numbers)}:ANSWER:${Date.parse("2021-04-09T10:57:51Z")}`,
    );
    // Without a mid, numbers or a time nothing tells the call apart: not deduplicated.
    const bare = { ...call, bridge: null, from: null, to: null, flowId: null } as Report;
    expect(defaultDedupeKey(bare)).toBeUndefined();
    expect(
      defaultDedupeKey({ ...call, startedAt: null, endedAt: null, reportedAt: null } as Report),
    ).toBeUndefined();
  });
});
