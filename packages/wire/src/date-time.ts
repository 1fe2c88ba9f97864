// Dates and times written as numbers, read into ms since the epoch (UTC) with a check that
// they are real: Date.UTC rolls 2019-02-30 over to March 2 without a word. One reading for
// the client's wall-clock times, a presigned URL's X-Amz-Date (recordingExpiry) and the
// sandbox's own.

// SigV4's basic ISO 8601, in UTC: "20190813T124618Z".
const SIGNED_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/**
 * The instant of six captured numbers, year, month (1-12), day, hour, minute and second, read
 * as UTC, in ms; undefined when they are not a real time.
 * @example utcMsOf(["2019", "08", "13", "12", "46", "18"]); // 1565700378000
 */
export function utcMsOf(captures: readonly (string | undefined)[]): number | undefined {
  const [y, mo, d, h, mi, s] = captures.slice(0, 6).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const at = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(at);
  const real =
    back.getUTCFullYear() === y &&
    back.getUTCMonth() === mo - 1 &&
    back.getUTCDate() === d &&
    back.getUTCHours() === h &&
    back.getUTCMinutes() === mi &&
    back.getUTCSeconds() === s;
  return real ? at : undefined;
}

/** A presigned URL's X-Amz-Date (or X-Goog-Date), "20190813T124618Z", in ms; undefined when not one. */
export function signedDateMs(text: string): number | undefined {
  const m = SIGNED_DATE.exec(text);
  return m === null ? undefined : utcMsOf(m.slice(1));
}
