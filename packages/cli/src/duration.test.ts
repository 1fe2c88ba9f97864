// The duration parser of --interval, --timeout and --retry-interval, as @reportkit/cli exports
// it: "500ms", "5s", "2m", "1h" in ms, and back.
import { describe, expect, it } from "vitest";
import { CliError, formatDuration, parseDuration } from "./index.js";

describe("parseDuration", () => {
  it.each([
    ["500ms", 500],
    ["5s", 5000],
    ["1.5s", 1500],
    ["2m", 120_000],
    ["1h", 3_600_000],
    [" 30m ", 1_800_000],
    ["0.0004s", 0],
    ["0.6ms", 1],
    ["24h", 86_400_000],
  ])("%j is %i ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["5", "fast", "-1s", "5 s", "1d", "1e3ms", ".5s", ""])(
    "refuses %j with a CliError naming the option and the accepted forms",
    (text) => {
      const error = (() => {
        try {
          parseDuration(text, "--interval");
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(CliError);
      expect((error as Error).message).toBe(
        `--interval must be a number with a unit (ms, s, m or h), e.g. 500ms, 5s or 30m; got "${text}".`,
      );
    },
  );

  it("refuses more than a timer can wait (24 days), and names the option", () => {
    expect(parseDuration("596h")).toBe(2_145_600_000);
    expect(() => parseDuration("597h", "--retry-interval")).toThrow(
      new CliError('--retry-interval must be at most 24 days; got "597h".'),
    );
    expect(() => parseDuration("soon")).toThrow(/^duration must be a number with a unit/);
  });
});

describe("formatDuration", () => {
  it.each([
    [1_800_000, "30m"],
    [7_200_000, "2h"],
    [2000, "2s"],
    [250, "250ms"],
    [1500, "1500ms"],
    [90_000, "90s"],
    [0, "0ms"],
  ])("%i ms is %j", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it("gives back what parseDuration reads", () => {
    for (const ms of [1, 999, 1000, 61_000, 3_600_000, 5_400_000]) {
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    }
  });
});
