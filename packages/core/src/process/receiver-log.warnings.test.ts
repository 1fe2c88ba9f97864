import { describe, expect, it } from "vitest";
import { post } from "../../../../test/fixtures/receiver-requests.js";
import { SAMPLE_CALL, SAMPLE_DLR, TOKEN } from "../../../../test/fixtures/samples.js";
import { createReceiver } from "../receiver/create-receiver.js";

function recorder() {
  const lines: string[] = [];
  return {
    lines,
    logger: { warn: (m: string) => void lines.push(m), error: (m: string) => void lines.push(m) },
  };
}

describe("a report's warnings, logged by default", () => {
  it("says each field and cause once a minute, with the report's id, answered 200 as before", async () => {
    const { lines, logger } = recorder();
    const receiver = createReceiver({ secret: TOKEN, logger, dedupe: false, onDelivery: () => {} });
    const unusable = { ...SAMPLE_DLR, status: 1, units: "two", deliv_time: "yesterday" };
    for (let i = 0; i < 3; i++) {
      expect((await receiver.handle(post(JSON.stringify(unusable)))).status).toBe(200);
    }
    // Three causes (an unknown status, units, deliv_time), each once for the three reports.
    expect(lines).toHaveLength(3);
    const about = (field: string) => lines.find((line) => line.includes(`"${field}": `));
    expect(about("units")).toMatch(
      /^reportkit: warning: SMS delivery report b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1, "units": expected a whole number, got "two"/,
    );
    expect(about("deliv_time")).toMatch(/yesterday/);
    expect(about("status")).toBeDefined();
  });

  it("never writes a phone number: a long run of digits in a warning is left out", async () => {
    const { lines, logger } = recorder();
    const receiver = createReceiver({ secret: TOKEN, logger, dedupe: false, onCall: () => {} });
    // A bare JSON number too large to be exact: its warning would quote its digits.
    const call = JSON.stringify({ ...SAMPLE_CALL, to: 0 }).replace(
      '"to":0',
      '"to":91987654321098765432',
    );
    expect((await receiver.handle(post(call))).status).toBe(200);
    expect(lines.join("\n")).toMatch(/"to": \[digits\]/);
    expect(lines.join("\n")).not.toMatch(/\d{7,}/);
  });

  it("bounds a flood of varied causes: at most five a minute per field", async () => {
    const { lines, logger } = recorder();
    const receiver = createReceiver({ secret: TOKEN, logger, dedupe: false, onDelivery: () => {} });
    for (let i = 0; i < 20; i++) {
      await receiver.handle(post(JSON.stringify({ ...SAMPLE_DLR, units: `x${i}` })));
    }
    expect(lines).toHaveLength(5);
  });

  it("logs nothing with logger: false", async () => {
    const printed: unknown[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => void printed.push(args);
    try {
      const receiver = createReceiver({ secret: TOKEN, logger: false, onDelivery: () => {} });
      await receiver.handle(post(JSON.stringify({ ...SAMPLE_DLR, units: "two" })));
    } finally {
      console.warn = original;
    }
    expect(printed).toEqual([]);
  });
});
