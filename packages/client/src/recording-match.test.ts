// Which recording of the Recordings API is a call report's: its URL's file first, else its
// numbers and time, the nearest to the call's end; two equally near are refused, not guessed.
import { describe, expect, it } from "vitest";
import { RecordingError } from "./errors.js";
import type { RecordedCall } from "./recorded-call.js";
import { matchRecording } from "./recording-match.js";
import type { Recording } from "./voice-log-schemas.js";

// 10:57:55 UTC is 16:27:55 in Kolkata, the provider's zone.
const CALL: RecordedCall = {
  recordingUrl: "https://s30m.s3.ap-southeast-1.amazonaws.com/rc/210409/c-1.mp3?X-Amz-Signature=a",
  from: "918068281235",
  to: "919876543210",
  bridge: "918068281234",
  startedAt: new Date("2021-04-09T10:57:39.000Z"),
  endedAt: new Date("2021-04-09T10:57:55.000Z"),
};

function recording(id: string, fields: Partial<Recording> = {}): Recording {
  return {
    id,
    callFrom: "918068281235",
    callTo: "919876543210",
    audio: `https://s30m.s3.ap-southeast-1.amazonaws.com/rc/210409/${id}.mp3?X-Amz-Signature=b`,
    duration: 16,
    agent: null,
    createdAt: "2021-04-09 16:27:56",
    raw: {},
    ...fields,
  };
}

describe("matchRecording", () => {
  it("takes the recording of the report URL's file, whatever its numbers and time", () => {
    const same = recording("c-1", { callFrom: "1", callTo: "2", createdAt: "2020-01-01 00:00:00" });
    expect(matchRecording(CALL, [recording("other"), same])).toBe(same);
  });

  it("else the one with the call's numbers created nearest its end", () => {
    const near = recording("near", { createdAt: "2021-04-09 16:27:58" });
    const far = recording("far", { createdAt: "2021-04-09 16:33:00" });
    expect(matchRecording(CALL, [far, near])).toBe(near);
  });

  it("reads numbers by their last 10 digits, and any of from, to and bridge", () => {
    const national = recording("n", { callFrom: "08068281234", callTo: "+91 98765 43210" });
    expect(matchRecording(CALL, [national])).toBe(national);
    const oneSide = recording("o", { callFrom: null, callTo: "919876543210" });
    expect(matchRecording(CALL, [oneSide])).toBe(oneSide);
  });

  it("refuses a recording naming a number the call does not have, or none", () => {
    const stranger = recording("s", { callTo: "919999999999" });
    const nameless = recording("x", { callFrom: null, callTo: null });
    expect(matchRecording(CALL, [stranger, nameless])).toBeNull();
  });

  it("looks from 2 minutes before the start to 10 minutes after the end, on the provider's clock", () => {
    const at = (createdAt: string) => matchRecording(CALL, [recording("t", { createdAt })]);
    expect(at("2021-04-09 16:25:39")?.id).toBe("t");
    expect(at("2021-04-09 16:25:38")).toBeNull();
    expect(at("2021-04-09 16:37:55")?.id).toBe("t");
    expect(at("2021-04-09 16:37:56")).toBeNull();
    // The same wall-clock time read as UTC would be 5 h 30 min away.
    expect(at("2021-04-09 10:57:55")).toBeNull();
    expect(at("")).toBeNull();
  });

  it("reads the times of a report's JSON form, and an end or a start alone", () => {
    const json = { ...CALL, startedAt: "2021-04-09T10:57:39.000Z", endedAt: null };
    expect(matchRecording(json, [recording("j", { createdAt: "2021-04-09 16:27:40" })])?.id).toBe(
      "j",
    );
  });

  it("two equally near are an 'ambiguous' RecordingError naming both, not a guess", () => {
    const error = (() => {
      try {
        matchRecording(CALL, [recording("a"), recording("b")]);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(RecordingError);
    expect(error).toMatchObject({ reason: "ambiguous" });
    expect((error as Error).message).toMatch(/2 recordings .* \(ids a, b\)/);
    // A nearer one settles it.
    const nearer = recording("c", { createdAt: "2021-04-09 16:27:55" });
    expect(matchRecording(CALL, [recording("a"), recording("b"), nearer])).toBe(nearer);
  });

  it("without a time only the URL's file can tell", () => {
    const call = { ...CALL, startedAt: null, endedAt: null };
    expect(matchRecording(call, [recording("a")])).toBeNull();
    expect(matchRecording(call, [recording("c-1")])?.id).toBe("c-1");
  });
});
