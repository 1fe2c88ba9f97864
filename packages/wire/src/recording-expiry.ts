// When a call recording's URL stops working, one rule for the receiver (a call report's
// `recordingExpiresAt`), the client (whether to ask the Recordings API for a fresh URL before
// downloading) and the docs. The provider's facts (v2/index.md, "Voice Recording URL Validity"
// and "Data Retention"): "Webhook URLs for recordings are valid for 2 hours only", a fresh one
// comes from the Recordings API, and "voice files, including call logs and recordings, are
// retained for 60 days before archival". The Recordings API's sample URLs are presigned S3 URLs
// (`X-Amz-Date=20190813T124618Z&X-Amz-Expires=3600`): such a URL says itself when it expires,
// which beats any rule of ours. Pure and Web-standard (URL, Date): it runs wherever core does.

import { signedDateMs } from "./date-time.js";

/** How long a call report's recording URL works: 2 hours (v2/index.md). */
export const RECORDING_URL_TTL_MS = 2 * 60 * 60 * 1000;

/**
 * How long the provider keeps a recording (and the call logs): 60 days (v2/index.md, "Voice
 * Channel, Data Retention"). After that neither the URL nor the Recordings API gives it back:
 * copy it to your own storage well before.
 */
export const RECORDING_RETENTION_MS = 60 * 24 * 60 * 60 * 1000;

/** When a recording URL stops working, and how that was known. */
export interface RecordingExpiry {
  expiresAt: Date;
  /**
   * "url": from the URL's own presigned parameters (`X-Amz-Date` + `X-Amz-Expires`, the
   * `X-Goog-` pair, or a unix `Expires`). "report-time": the report's time plus the documented
   * 2 hours (`RECORDING_URL_TTL_MS`).
   */
  source: "url" | "report-time";
}

const SECONDS = /^\d{1,9}$/;

/**
 * When the recording URL of a call report stops working: from the URL's own presigned
 * parameters when it has readable ones (`X-Amz-Date` + `X-Amz-Expires` as the provider's
 * samples carry, names in any case; the same pair with `X-Goog-`; else a plain unix-seconds
 * `Expires`, as S3's older presigned URLs and CloudFront's signed ones carry), otherwise
 * `reportTime` + 2 hours, otherwise null (no readable parameter and no report time).
 *
 * The report time is when the provider made the report, not when it arrived: a report the
 * provider retries 30, 60 or 90 minutes later carries the same URL, already partly used up.
 * The rule for a call report, first present wins: a Click2Call report's `unixtime` (the page:
 * when the report was made), then its wall-clock `date` (the same instant), then the call's
 * `end_at` (an outbound-dial report has no time of its own; it is made as the call ends),
 * then its `start_at` (earlier than the real base: the expiry comes out early, so a fresh URL
 * is asked for sooner than needed, never later).
 *
 * @example
 * recordingExpiry(report.recordingUrl, report.endedAt);
 * // { expiresAt: 2019-08-13T13:46:18.000Z, source: "url" } for the provider's sample URL
 */
export function recordingExpiry(url: string, reportTime: Date | null): RecordingExpiry | null {
  const signed = typeof url === "string" ? presignedExpiry(url) : undefined;
  if (signed !== undefined) return { expiresAt: new Date(signed), source: "url" };
  const base = reportTime instanceof Date ? reportTime.getTime() : Number.NaN;
  const expiresAt = new Date(base + RECORDING_URL_TTL_MS);
  // No time, or one so late that 2 hours after it is past any Date (8.64e15 ms).
  if (Number.isNaN(expiresAt.getTime())) return null;
  return { expiresAt, source: "report-time" };
}

/** The expiry a presigned URL states, in ms since the epoch; undefined when it states none. */
function presignedExpiry(url: string): number | undefined {
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    return undefined;
  }
  // The provider's sample writes the names in S3's case; a proxy or a hand-made URL may not.
  const byName = new Map<string, string>();
  for (const [name, value] of params) {
    const key = name.toLowerCase();
    if (!byName.has(key)) byName.set(key, value.trim());
  }
  for (const prefix of ["x-amz-", "x-goog-"]) {
    const date = byName.get(`${prefix}date`);
    const signedAt = date === undefined ? undefined : signedDateMs(date);
    const lifetime = byName.get(`${prefix}expires`);
    if (signedAt !== undefined && lifetime !== undefined && SECONDS.test(lifetime)) {
      return signedAt + Number(lifetime) * 1000;
    }
  }
  const expires = byName.get("expires");
  if (expires !== undefined && /^\d{1,11}$/.test(expires)) return Number(expires) * 1000;
  return undefined;
}
