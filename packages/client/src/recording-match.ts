import { PROVIDER_TIME_ZONE } from "@reportkit/wire";
import { RecordingError } from "./errors.js";
import { instantOf, type RecordedCall } from "./recorded-call.js";
import type { Recording } from "./voice-log-schemas.js";
import { wallClockAt, wallClockMs } from "./wall-clock.js";

// Which recording of the Recordings API is a call report's. The API has no filter but the day
// (`datetime[r.created_at]`) and its records no call id: a recording is told by its URL, else
// by the call's numbers and time.
//
// 1. Its URL: the same file. A fresh URL is the report's own with a new signature (the
//    provider: the same URL "can be achieved from recordings API"), so a recording whose
//    `audio` has the report URL's origin and path is the one, whatever else it says.
// 2. Else its numbers and time: every phone number it names (`call_from`, `call_to`) is one of
//    the report's (`from`, `to`, `bridge`; the last 10 digits compared, so 918068281234 and
//    08068281234 are one number), and it was created from 2 minutes before the call started
//    to 10 minutes after it ended (the recording is made as the call ends; the margin is for
//    the provider's processing). Of several, the one created nearest the call's end; two
//    equally near are an "ambiguous" RecordingError, never a guess: a recording of another
//    call kept as evidence is worse than none.
// None is null: older than the 60 days the provider keeps, not recorded, or not yet listed.

/** A recording may be created this long before the call started. */
export const RECORDING_MATCH_BEFORE_MS = 2 * 60_000;
/** ... and this long after it ended. */
export const RECORDING_MATCH_AFTER_MS = 10 * 60_000;

/** The call's time span on the provider's wall clock (wall ms, see wall-clock.ts). */
export interface CallSpan {
  /** Wall ms the matching recordings are created from and until. */
  earliest: number;
  latest: number;
  /** Wall ms of the call's end (its start when it has no end). */
  end: number;
}

/** The span a call's recording is looked for in; undefined when the call has no time. */
export function callSpan(call: RecordedCall, timeZone: string): CallSpan | undefined {
  const started = instantOf(call.startedAt);
  const ended = instantOf(call.endedAt);
  const start = started ?? ended;
  const end = ended ?? started;
  if (start === null || end === null) return undefined;
  const wallEnd = wallClockAt(end, timeZone);
  return {
    earliest: wallClockAt(start, timeZone) - RECORDING_MATCH_BEFORE_MS,
    latest: wallEnd + RECORDING_MATCH_AFTER_MS,
    end: wallEnd,
  };
}

/**
 * Weighs recordings one at a time against a call (page after page of the Recordings API):
 * `consider` says when the one given is certainly the call's (its URL), so the walk can stop;
 * `result` gives the best, null for none.
 */
export class RecordingMatcher {
  private readonly filePath: string | undefined;
  private readonly numbers: string[];
  private readonly span: CallSpan | undefined;
  private byUrl: Recording | undefined;
  private best: { recording: Recording; distance: number; tied: Recording[] } | undefined;

  constructor(call: RecordedCall, timeZone: string = PROVIDER_TIME_ZONE) {
    this.filePath = call.recordingUrl == null ? undefined : filePathOf(call.recordingUrl);
    this.numbers = [call.from, call.to, call.bridge]
      .map((n) => phoneKey(n))
      .filter((n): n is string => n !== undefined);
    this.span = callSpan(call, timeZone);
  }

  /** True when `recording` is the call's by its URL: no other needs to be looked at. */
  consider(recording: Recording): boolean {
    if (this.byUrl !== undefined) return true;
    if (this.filePath !== undefined && recording.audio !== null) {
      if (filePathOf(recording.audio) === this.filePath) {
        this.byUrl = recording;
        return true;
      }
    }
    const distance = this.distance(recording);
    if (distance === undefined) return false;
    if (this.best === undefined || distance < this.best.distance) {
      this.best = { recording, distance, tied: [] };
    } else if (distance === this.best.distance && recording.id !== this.best.recording.id) {
      this.best.tied.push(recording);
    }
    return false;
  }

  /**
   * The call's recording, or null.
   * @throws RecordingError "ambiguous" when two fit equally well by numbers and time
   */
  result(): Recording | null {
    if (this.byUrl !== undefined) return this.byUrl;
    if (this.best === undefined) return null;
    if (this.best.tied.length > 0) {
      const ids = [this.best.recording, ...this.best.tied].map((r) => r.id);
      throw new RecordingError(
        "ambiguous",
        `${ids.length} recordings of the Recordings API fit this call equally well (ids ${ids.join(", ")}): same numbers, created at the same time. Pick one by its id (client.recordings.list) rather than have reportkit guess.`,
        { request: "GET voice/recordings" },
      );
    }
    return this.best.recording;
  }

  /** How far from the call's end the recording was created, in ms; undefined when it does not fit. */
  private distance(recording: Recording): number | undefined {
    if (this.span === undefined || recording.createdAt === null) return undefined;
    const named = [recording.callFrom, recording.callTo]
      .map((n) => phoneKey(n))
      .filter((n): n is string => n !== undefined);
    if (named.length === 0 || !named.every((n) => this.numbers.includes(n))) return undefined;
    const created = wallClockMs(recording.createdAt);
    if (created === undefined) return undefined;
    if (created < this.span.earliest || created > this.span.latest) return undefined;
    return Math.abs(created - this.span.end);
  }
}

/**
 * The recording of `call` among `recordings` (e.g. a day's, read once with
 * `client.recordings.iterate` to match many calls), by the rule above; null for none.
 * @throws RecordingError "ambiguous" when two fit equally well by numbers and time
 */
export function matchRecording(
  call: RecordedCall,
  recordings: Iterable<Recording>,
  timeZone: string = PROVIDER_TIME_ZONE,
): Recording | null {
  const matcher = new RecordingMatcher(call, timeZone);
  for (const recording of recordings) if (matcher.consider(recording)) break;
  return matcher.result();
}

/** The URL's origin and path (the file), without its query (the signature). */
function filePathOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return undefined;
  }
}

/** A phone number's last 10 digits (all of them when fewer); undefined without a digit. */
function phoneKey(value: string | null | undefined): string | undefined {
  if (value == null) return undefined;
  const digits = value.replace(/\D/g, "");
  if (digits === "") return undefined;
  return digits.length > 10 ? digits.slice(-10) : digits;
}
