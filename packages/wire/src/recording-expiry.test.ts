import { describe, expect, it } from "vitest";
import {
  RECORDING_RETENTION_MS,
  RECORDING_URL_TTL_MS,
  recordingExpiry,
} from "./recording-expiry.js";

// The Recordings API's sample URL (v2/voice/logs.md), verbatim.
const SAMPLE_AUDIO =
  "https://s30m.s3.ap-southeast-1.amazonaws.com/rc/190624/c-9180682876012-11061911.mp3?X-Amz-Content-Sha256=UNSIGNED-PAYLOAD&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAITXHQTJADVE4ZNPA%2F20190813%2Fap-southeast-1%2Fs3%2Faws4_request&X-Amz-Date=20190813T124618Z&X-Amz-SignedHeaders=host&X-Amz-Expires=3600&X-Amz-Signature=cab675aec80b0d2544232ee3b1c272217c49e2c028a3029d58feffc94bc11576";
const ENDED = new Date("2021-04-09T10:57:55.000Z");

describe("recordingExpiry", () => {
  it("reads the provider's sample URL: signed 12:46:18 UTC, valid 3600 s", () => {
    expect(recordingExpiry(SAMPLE_AUDIO, ENDED)).toEqual({
      expiresAt: new Date("2019-08-13T13:46:18.000Z"),
      source: "url",
    });
  });

  it("reads the parameters in any case, and the X-Goog- pair", () => {
    const url = "https://host.example/a.mp3?x-amz-date=20240101T000000Z&X-AMZ-EXPIRES=60";
    expect(recordingExpiry(url, null)?.expiresAt).toEqual(new Date("2024-01-01T00:01:00.000Z"));
    const goog =
      "https://storage.googleapis.com/b/a.mp3?X-Goog-Date=20240101T000000Z&X-Goog-Expires=7200";
    expect(recordingExpiry(goog, null)).toEqual({
      expiresAt: new Date("2024-01-01T02:00:00.000Z"),
      source: "url",
    });
  });

  it("reads a plain unix Expires (S3's older presigned URLs, CloudFront's signed ones)", () => {
    const url =
      "https://bucket.s3.amazonaws.com/a.mp3?AWSAccessKeyId=AK&Expires=1565700378&Signature=x";
    expect(recordingExpiry(url, ENDED)).toEqual({
      expiresAt: new Date(1_565_700_378_000),
      source: "url",
    });
  });

  it("takes the report's time plus 2 hours when the URL states nothing readable", () => {
    const later = { expiresAt: new Date(ENDED.getTime() + 2 * 3_600_000), source: "report-time" };
    for (const url of [
      "https://youraudiofilelocation/",
      "https://h.example/a.mp3?X-Amz-Date=20190230T124618Z&X-Amz-Expires=3600",
      "https://h.example/a.mp3?X-Amz-Date=20190813T124618Z",
      "https://h.example/a.mp3?X-Amz-Date=20190813T124618Z&X-Amz-Expires=-5",
      "https://h.example/a.mp3?Expires=soon",
      "not a URL",
      "",
    ]) {
      expect(recordingExpiry(url, ENDED), url).toEqual(later);
    }
  });

  it("is null with neither a readable URL nor a report time", () => {
    expect(recordingExpiry("https://youraudiofilelocation/", null)).toBeNull();
    expect(recordingExpiry("https://youraudiofilelocation/", new Date(Number.NaN))).toBeNull();
  });

  it("is null for a report time so late that 2 hours after it is past any Date (found by core's property test)", () => {
    expect(recordingExpiry("https://x.example/r.wav", new Date(8.64e15))).toBeNull();
  });

  it("states the provider's two figures", () => {
    expect(RECORDING_URL_TTL_MS).toBe(7_200_000);
    expect(RECORDING_RETENTION_MS).toBe(60 * 86_400_000);
  });
});
