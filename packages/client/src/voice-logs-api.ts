import { PROVIDER_TIME_ZONE } from "@reportkit/wire";
import { RecordingError } from "./errors.js";
import { type DayRange, dayRange, pageParam, writtenDayRange } from "./pull-query.js";
import type { RecordedCall } from "./recorded-call.js";
import { callSpan, RecordingMatcher } from "./recording-match.js";
import { request, type Transport, validate } from "./transport.js";
import {
  type CallLogPage,
  CallLogPageSchema,
  type CallLogRecord,
  type Recording,
  type RecordingPage,
  RecordingPageSchema,
} from "./voice-log-schemas.js";
import { walkPages } from "./walk-pages.js";

/** The Call Logs API (v2/voice/logs.md, "Call Logs Report"). */
export interface CallLogsApi {
  /**
   * One page (15) of calls; with `from` (and `to`) those that ended on those days, in the
   * provider's zone (sent as `datetime[end_at]=Aug 07, 2019 - Aug 13, 2019`).
   */
  list(query?: Partial<DayRange> & { page?: number }): Promise<CallLogPage>;
  /** Every call, page after page. */
  iterate(query?: Partial<DayRange>): AsyncIterableIterator<CallLogRecord>;
}

/** The Recordings API (v2/voice/logs.md, "Recordings Report"): fresh URLs of recordings. */
export interface RecordingsApi {
  /**
   * One page (15) of recordings; with `from` (and `to`) those created on those days, in the
   * provider's zone (sent as `datetime[r.created_at]=Aug 07, 2019 - Aug 13, 2019`).
   */
  list(query?: Partial<DayRange> & { page?: number }): Promise<RecordingPage>;
  /** Every recording, page after page. */
  iterate(query?: Partial<DayRange>): AsyncIterableIterator<Recording>;
  /**
   * The recording of a call report, with a fresh URL (`audio`): by the report URL's file,
   * else by the call's numbers and time (docs/recordings.md has the rule). Reads the
   * recordings of the call's day (two around midnight), page after page, and stops at the
   * first with the report URL's file. Null when none fits.
   * @throws RecordingError "not-found" when the call has neither `startedAt` nor `endedAt`
   *   (the API is searched by day); "ambiguous" when two fit equally well
   */
  forCall(call: RecordedCall, options?: { timeZone?: string }): Promise<Recording | null>;
}

const VOICE_CALLS = "voice/calls";
const VOICE_RECORDINGS = "voice/recordings";

/** The `datetime[...]` parameter of a day range, or none without one. */
function rangeParam(
  api: string,
  name: string,
  query: Partial<DayRange> | undefined,
): Record<string, string> {
  if (query?.from === undefined && query?.to === undefined) return {};
  return { [name]: writtenDayRange(dayRange(api, query)) };
}

export function callLogsApi(t: Transport): CallLogsApi {
  async function list(query: Partial<DayRange> & { page?: number } = {}): Promise<CallLogPage> {
    const range = rangeParam("callLogs.list", "datetime[end_at]", query);
    const page = pageParam(query.page);
    const body = await request(t, { method: "GET", path: VOICE_CALLS, query: { ...range, page } });
    return validate(t, CallLogPageSchema, `GET ${VOICE_CALLS}`, body);
  }

  function iterate(query: Partial<DayRange> = {}): AsyncIterableIterator<CallLogRecord> {
    rangeParam("callLogs.iterate", "datetime[end_at]", query);
    const { from, to } = query;
    return walkPages(`GET ${VOICE_CALLS}`, (page) => list({ from, to, page }));
  }

  return { list, iterate };
}

export function recordingsApi(t: Transport): RecordingsApi {
  async function list(query: Partial<DayRange> & { page?: number } = {}): Promise<RecordingPage> {
    const range = rangeParam("recordings.list", "datetime[r.created_at]", query);
    const page = pageParam(query.page);
    const body = await request(t, {
      method: "GET",
      path: VOICE_RECORDINGS,
      query: { ...range, page },
    });
    return validate(t, RecordingPageSchema, `GET ${VOICE_RECORDINGS}`, body);
  }

  function iterate(query: Partial<DayRange> = {}): AsyncIterableIterator<Recording> {
    rangeParam("recordings.iterate", "datetime[r.created_at]", query);
    const { from, to } = query;
    return walkPages(`GET ${VOICE_RECORDINGS}`, (page) => list({ from, to, page }));
  }

  async function forCall(
    call: RecordedCall,
    options: { timeZone?: string } = {},
  ): Promise<Recording | null> {
    if (typeof call !== "object" || call === null) {
      throw new TypeError(
        "reportkit client: recordings.forCall needs a call report (recordingUrl, from, to, bridge, startedAt, endedAt).",
      );
    }
    const timeZone = options.timeZone ?? PROVIDER_TIME_ZONE;
    const span = callSpan(call, timeZone);
    if (span === undefined) {
      throw new RecordingError(
        "not-found",
        "The call has neither startedAt nor endedAt: the Recordings API is searched by the day a recording was created, so a call without a time cannot be looked up. List the recordings of its day yourself (client.recordings.iterate({ from })) and pick one with matchRecording.",
        { request: `GET ${VOICE_RECORDINGS}` },
      );
    }
    // Wall ms read as UTC: the provider's day of each end of the span.
    const from = new Date(span.earliest).toISOString().slice(0, 10);
    const to = new Date(span.latest).toISOString().slice(0, 10);
    const matcher = new RecordingMatcher(call, timeZone);
    for await (const recording of iterate({ from, to })) {
      if (matcher.consider(recording)) break;
    }
    return matcher.result();
  }

  return { list, iterate, forCall };
}
