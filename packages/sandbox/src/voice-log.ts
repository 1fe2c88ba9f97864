import { randomUUID } from "node:crypto";
import {
  type PulledCallLog,
  type PulledRecording,
  RECORDING_RETENTION_MS,
  RECORDING_URL_TTL_MS,
} from "@reportkit/wire";
import { locationOf } from "./number-location.js";
import type { PresignedUrls } from "./presigned-url.js";

// Every simulated call and its recording, as the provider's voice logs list them
// (v2/voice/logs.md: Call Logs, Recordings), and the recordings' files, at presigned URLs that
// expire on the sandbox's clock: a report's URL 2 hours after the call (v2/index.md), a fresh
// one from the Recordings API an hour after it was asked for (its sample's X-Amz-Expires=3600).
// Both go after 60 days, as the provider keeps them.

/** Where the recordings are served, beside the API. */
export const RECORDINGS_PATH = "/recordings/";
/** How long a call report's recording URL works, in seconds: 2 hours. */
const REPORT_URL_SECONDS = RECORDING_URL_TTL_MS / 1000;
/** How long a Recordings API URL works, in seconds, as its sample's X-Amz-Expires. */
const FRESH_URL_SECONDS = 3600;
/** How many calls are kept (the oldest are forgotten first), as the message log. */
const MAX_KEPT = 100_000;

/** A recording file the sandbox serves. */
export interface StoredRecording {
  id: string;
  /** Its path on the sandbox, under RECORDINGS_PATH. */
  path: string;
  /** Its size in bytes. */
  size: number;
  /** When it was made (the call's end), in ms. */
  createdAt: number;
}

/** A call as the voice logs list it: an outbound-dial call's or a Click2Call's report, read. */
export interface VoiceCall {
  /** An outbound-dial call's mid; a Click2Call's call id. */
  id: string;
  from: string;
  /** The number called (a Click2Call's IVR flow: "flow:220"). */
  to: string;
  bridge: string;
  /** The report's `source`: "OBD", "C2C". */
  source: string;
  status: string;
  /** Seconds of the call (a Click2Call's first). */
  duration: number;
  /** Seconds billed (a Click2Call's second call). */
  billing: number;
  /** "caller", "agent", or "" when nobody answered. */
  hangupBy: string;
  /** Wall-clock, as the report writes them. */
  startAt: string;
  endAt: string;
}

interface LoggedCall {
  report: VoiceCall;
  /** When the call ended, in ms: the day and the retention of its logs. */
  endedAt: number;
  recording: StoredRecording | undefined;
}

/** Days from `from` to `to`, both yyyy-mm-dd (a voice log's `datetime[...]` filter). */
export interface DayRange {
  from: string;
  to: string;
}

export class VoiceLog {
  private readonly calls: LoggedCall[] = [];
  private readonly files = new Map<string, StoredRecording>();

  constructor(
    private readonly urls: PresignedUrls,
    private readonly now: () => number,
  ) {}

  /**
   * Logs a call that ended at `endedAt` (ms). With `recordingBytes`, it was recorded: its
   * file is made (that many bytes) and the URL its report carries returned, signed at the
   * call's end and valid 2 hours, at `origin`.
   */
  call(
    report: VoiceCall,
    endedAt: number,
    recordingBytes: number | undefined,
    origin: string,
  ): string | undefined {
    let recording: StoredRecording | undefined;
    if (recordingBytes !== undefined) {
      const id = randomUUID();
      const day = report.endAt.slice(2, 10).replaceAll("-", "");
      recording = {
        id,
        path: `${RECORDINGS_PATH}rc/${day}/${id}.wav`,
        size: recordingBytes,
        createdAt: endedAt,
      };
      this.files.set(recording.path, recording);
    }
    this.calls.push({ report, endedAt, recording });
    if (this.calls.length > MAX_KEPT) {
      const forgotten = this.calls.shift()?.recording;
      if (forgotten !== undefined) this.files.delete(forgotten.path);
    }
    return recording === undefined
      ? undefined
      : this.urlOf(recording, origin, endedAt, REPORT_URL_SECONDS);
  }

  /** The recording served at `path`; undefined when there is none (or it is past 60 days). */
  recordingAt(path: string): StoredRecording | undefined {
    const recording = this.files.get(path);
    return recording !== undefined && this.kept(recording.createdAt) ? recording : undefined;
  }

  /** GET voice/calls: the calls that ended on the range's days, newest first. */
  callLogs(range: DayRange | undefined, origin: string): PulledCallLog[] {
    return this.within(range, (c) => c.report.endAt).map(({ report, recording }) => {
      const pulses = Math.ceil(report.billing / 30);
      const where = locationOf(report.to);
      return {
        id: report.id,
        call_from: report.from,
        call_to: report.to,
        service: report.source,
        bridge: report.bridge,
        status: report.status,
        duration: clock(report.duration),
        billing: clock(report.billing),
        pulsing: "30",
        charges: (pulses * 0.015).toFixed(4),
        start_at: report.startAt,
        end_at: report.endAt,
        hangup_by: report.hangupBy,
        dtmf: null,
        location: where?.location_code.toUpperCase() ?? "",
        region: where?.region_code ?? "",
        provider: where?.provider_code ?? "",
        notes: null,
        audio: recording === undefined ? null : this.freshUrl(recording, origin),
        name: null,
      };
    });
  }

  /** GET voice/recordings: the recordings made on the range's days, newest first, each a fresh URL. */
  recordings(range: DayRange | undefined, origin: string): PulledRecording[] {
    return this.within(range, (c) => c.report.endAt).flatMap(({ report, recording }) =>
      recording === undefined
        ? []
        : [
            {
              id: recording.id,
              call_from: report.from,
              call_to: report.to,
              audio: this.freshUrl(recording, origin),
              duration: clock(report.duration),
              agent: null,
              created_at: report.endAt,
            },
          ],
    );
  }

  /** The kept calls whose day (of `dayOf`) is in the range, newest first. */
  private within(range: DayRange | undefined, dayOf: (c: LoggedCall) => string): LoggedCall[] {
    return this.calls
      .filter((c) => this.kept(c.endedAt))
      .filter((c) => {
        const day = dayOf(c).slice(0, 10);
        return range === undefined || (day >= range.from && day <= range.to);
      })
      .reverse();
  }

  private kept(at: number): boolean {
    return this.now() - at < RECORDING_RETENTION_MS;
  }

  private freshUrl(recording: StoredRecording, origin: string): string {
    return this.urlOf(recording, origin, this.now(), FRESH_URL_SECONDS);
  }

  private urlOf(recording: StoredRecording, origin: string, at: number, seconds: number): string {
    return `${origin}${recording.path}?${this.urls.query(recording.path, at, seconds)}`;
  }
}

/** Seconds as the voice logs write a length of time: "00:01:33". */
function clock(seconds: number): string {
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
}
