// The call report as the recording helpers read it. The client does not depend on core: this
// is the part of core's `CallReport` they need, typed structurally, so a `CallReport` fits, and
// so does its JSON form (a job in a queue, a report kept in your own table: times as ISO
// strings), and a call you describe yourself.

/** The fields of a call report that find and download its recording. */
export interface RecordedCall {
  /** The report's `recording_url`; null when the call was not recorded. */
  recordingUrl: string | null;
  /** The call's numbers, digit strings (the Recordings API's `call_from`/`call_to` are matched to them). */
  from?: string | null;
  to?: string | null;
  /** The DID that made the call. */
  bridge?: string | null;
  /** When the call started and ended: a Date, or its ISO string in a report's JSON form. */
  startedAt?: Date | string | null;
  endedAt?: Date | string | null;
  /**
   * When `recordingUrl` stops working, as the receiver worked it out (`recordingExpiry` of
   * @reportkit/wire). Absent (a report received before reportkit gave it): worked out here, the
   * same way, from the URL and `endedAt`.
   */
  recordingExpiresAt?: Date | string | null;
}

/** A time of a call report, a Date or an ISO string; null when absent or not a real time. */
export function instantOf(value: Date | string | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  const at = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(at) ? null : new Date(at);
}
