import { PROVIDER_TIME_ZONE, recordingExpiry } from "@reportkit/wire";
import { type Client, MAX_TIMER_MS } from "./create-client.js";
import { RecordingError } from "./errors.js";
import { instantOf, type RecordedCall } from "./recorded-call.js";
import {
  checkedUrl,
  contentLength,
  countedBody,
  ExpiredAtHost,
  fetchWithinOrigin,
  tooLarge,
} from "./recording-fetch.js";
import type { Recording } from "./voice-log-schemas.js";

// A call report's recording, streamed to where the user keeps it, with the Web's own streams
// and fetch only (no `node:` import): the same code runs in a request handler, a queue worker,
// Workers, Deno or Lambda. The recording host is not the API: it gets no credential (a
// presigned URL is its own), a redirect may not take the download elsewhere, and what it
// sends is bounded in size and time and never held whole in memory.

/**
 * Where the recording goes: a `WritableStream` (a Node file through
 * `Writable.toWeb(fs.createWriteStream(path))`), closed once every byte is written and aborted
 * on any failure; or a function that consumes a `ReadableStream` (an S3 upload) and resolves
 * once it has read it to the end.
 */
export type RecordingSink =
  | WritableStream<Uint8Array>
  | ((recording: ReadableStream<Uint8Array>, info: RecordingInfo) => Promise<unknown>);

/** What the recording host says of the file, for a sink that stores it (an S3 ContentType). */
export interface RecordingInfo {
  contentType: string | null;
  /** The Content-Length the host declared, when it declared one. */
  contentLength: number | null;
}

export interface DownloadRecordingOptions {
  /**
   * The provider's API client (`createClient` with the account's API token), to ask the
   * Recordings API for a fresh URL when the report's has expired. Without it an expired URL
   * is a RecordingError "expired". Its token is sent to the API only, never to the
   * recording host.
   */
  client?: Client;
  /** Largest recording taken, in bytes; a larger one stops with "too-large". Default 100 MiB. */
  maxBytes?: number;
  /** Longest one download may take, from the request to the sink's end, in ms. Default 300000 (5 minutes). */
  timeoutMs?: number;
  /** Take http:// recording URLs too (the sandbox's). Default false: https only. */
  allowHttp?: boolean;
  /** Cancels the download: it rejects with the signal's reason, the sink aborted. */
  signal?: AbortSignal;
  /** A fetch implementation for the recording host; default the global one. */
  fetch?: typeof globalThis.fetch;
  /** The provider's zone, for the Recordings API lookup. Default `PROVIDER_TIME_ZONE`. */
  timeZone?: string;
  /** The current time in ms, for whether the URL has expired; default `Date.now`. */
  now?: () => number;
}

export interface DownloadedRecording {
  /** Bytes written to the sink. */
  bytes: number;
  contentType: string | null;
  /** True when the report's URL had expired and a fresh one from the Recordings API was used. */
  refreshed: boolean;
  /** The Recordings API's record of it, when it was asked (`refreshed`); else null. */
  recording: Recording | null;
}

/** Default `maxBytes`: 100 MiB, an hour of stereo MP3 at 192 kbit/s is about 85 MB. */
export const DEFAULT_RECORDING_MAX_BYTES = 100 * 1024 * 1024;
/** Default `timeoutMs`: 5 minutes. */
export const DEFAULT_RECORDING_TIMEOUT_MS = 5 * 60_000;
/** A URL with less than this left is taken as expired: a fresh one is asked for first. */
const EXPIRY_MARGIN_MS = 30_000;
/**
 * Streams a call report's recording to `sink`: the report's URL while it works; once it has
 * expired (by `recordingExpiresAt`, or `recordingExpiry` of its URL and `endedAt`, or because
 * the host answers 403/404/410 saying so) a fresh URL of the same call from the Recordings
 * API, which needs `options.client`. Https only (unless `allowHttp`), no credential sent to the
 * recording host, redirects followed within its origin only (5 at most), at most `maxBytes`
 * and `timeoutMs`; the file is never held whole in memory.
 *
 * On success the sink has every byte (a WritableStream is closed); on failure a WritableStream
 * sink is aborted, a function sink sees its stream fail, and the promise rejects with a
 * RecordingError whose `reason` says why (or the signal's reason when `signal` aborted it).
 *
 * @example
 * const tmp = `${path}.part`;
 * await downloadRecording(report, Writable.toWeb(fs.createWriteStream(tmp)), { client });
 * await fs.promises.rename(tmp, path); // only a whole file gets its name
 */
export async function downloadRecording(
  call: RecordedCall,
  sink: RecordingSink,
  options: DownloadRecordingOptions = {},
): Promise<DownloadedRecording> {
  checkArguments(call, sink, options);
  try {
    return await download(call, sink, options);
  } catch (error) {
    // The sink is told too, so that a file or an upload it opened is not left as if complete.
    if (sink instanceof WritableStream && !sink.locked) await sink.abort(error).catch(() => {});
    throw error;
  }
}

async function download(
  call: RecordedCall,
  sink: RecordingSink,
  options: DownloadRecordingOptions,
): Promise<DownloadedRecording> {
  const now = options.now ?? Date.now;
  const url = call.recordingUrl;
  if (typeof url !== "string" || url.trim() === "") {
    throw new RecordingError(
      "no-recording-url",
      "The call report has no recordingUrl: the provider sends one only for a recorded call (an answered one, on an account that records).",
    );
  }
  const expiresAt =
    instantOf(call.recordingExpiresAt) ??
    recordingExpiry(url, instantOf(call.endedAt) ?? instantOf(call.startedAt))?.expiresAt ??
    null;
  if (expiresAt !== null && expiresAt.getTime() - now() < EXPIRY_MARGIN_MS) {
    const fresh = await freshRecording(
      call,
      options,
      `expired at ${expiresAt.toISOString()} (the provider's recording URLs work for 2 hours)`,
    );
    return {
      ...(await transfer(freshUrlOf(fresh), sink, options)),
      refreshed: true,
      recording: fresh,
    };
  }
  try {
    return { ...(await transfer(url.trim(), sink, options)), refreshed: false, recording: null };
  } catch (error) {
    if (!(error instanceof ExpiredAtHost)) throw error;
    const refused = error.message.replace(/\.$/, "");
    const fresh = await freshRecording(call, options, `was refused as expired: ${refused}`);
    try {
      return {
        ...(await transfer(freshUrlOf(fresh), sink, options)),
        refreshed: true,
        recording: fresh,
      };
    } catch (again) {
      throw again instanceof ExpiredAtHost ? again.refusal : again;
    }
  }
}

/**
 * The call's recording from the Recordings API.
 * @throws RecordingError "expired" without a client, "not-found" when it lists none
 */
async function freshRecording(
  call: RecordedCall,
  options: DownloadRecordingOptions,
  why: string,
): Promise<Recording> {
  if (options.client === undefined) {
    throw new RecordingError(
      "expired",
      `The recording URL ${why}. A fresh one comes from the provider's Recordings API, which needs the account's API credentials: pass { client: createClient({ baseUrl, token }) } (token: the account's API access token, REPORTKIT_API_TOKEN) in downloadRecording's options.`,
    );
  }
  const recording = await options.client.recordings.forCall(call, {
    timeZone: options.timeZone ?? PROVIDER_TIME_ZONE,
  });
  if (recording === null || recording.audio === null) {
    throw new RecordingError(
      "not-found",
      `The recording URL ${why}, and the Recordings API lists no recording of this call (none with the URL's file, none with its numbers created around its time): it is older than the 60 days the provider keeps recordings, or the call was not recorded.`,
      { request: "GET voice/recordings" },
    );
  }
  return recording;
}

function freshUrlOf(recording: Recording): string {
  return (recording.audio as string).trim();
}

/** One download from `url` into the sink. */
async function transfer(
  url: string,
  sink: RecordingSink,
  options: DownloadRecordingOptions,
): Promise<{ bytes: number; contentType: string | null }> {
  const start = checkedUrl(url, options.allowHttp === true);
  const timeoutMs = options.timeoutMs ?? DEFAULT_RECORDING_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_RECORDING_MAX_BYTES;
  // Ours, to let go of the connection on any failure; the deadline; the caller's.
  const stop = new AbortController();
  const deadline = AbortSignal.timeout(timeoutMs);
  const signals = [
    stop.signal,
    deadline,
    ...(options.signal === undefined ? [] : [options.signal]),
  ];
  const signal = AbortSignal.any(signals);
  const failed = (error: unknown): unknown => {
    stop.abort();
    if (options.signal?.aborted) return options.signal.reason;
    if (deadline.aborted) {
      return new RecordingError(
        "timed-out",
        `The recording download did not finish within timeoutMs (${timeoutMs} ms): stopped, the sink aborted. Raise timeoutMs for long recordings or a slow sink.`,
      );
    }
    return error;
  };

  try {
    const response = await fetchWithinOrigin(options.fetch ?? globalThis.fetch, start, signal);
    const declared = contentLength(response);
    if (declared !== null && declared > maxBytes) {
      await response.body?.cancel().catch(() => {});
      throw tooLarge(maxBytes, declared);
    }
    const info: RecordingInfo = {
      contentType: response.headers.get("content-type"),
      contentLength: declared,
    };
    const reading = countedBody(response, maxBytes);
    if (sink instanceof WritableStream) {
      try {
        await reading.stream.pipeTo(sink, { signal });
      } catch (error) {
        throw reading.failure() ?? sinkFailure(error);
      }
    } else {
      try {
        await Promise.race([sink(reading.stream, info), abortion(signal)]);
      } catch (error) {
        throw reading.failure() ?? sinkFailure(error);
      }
      if (!reading.complete()) {
        throw new RecordingError(
          "sink",
          "The sink resolved before it had read the recording to its end: the rest was not stored. A function sink must consume the whole stream (e.g. an S3 Upload's done()).",
        );
      }
    }
    return { bytes: reading.bytes(), contentType: info.contentType };
  } catch (error) {
    throw failed(error);
  }
}

function sinkFailure(cause: unknown): RecordingError {
  const said = cause instanceof Error ? cause.message : String(cause);
  return new RecordingError("sink", `The sink failed while storing the recording: ${said}`, {
    cause,
  });
}

/** A promise that rejects with the signal's reason once it aborts (never resolves). */
function abortion(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** Programming mistakes, said before anything is sent. */
function checkArguments(call: unknown, sink: unknown, options: DownloadRecordingOptions): void {
  if (typeof call !== "object" || call === null) {
    throw new TypeError(
      "reportkit client: downloadRecording needs a call report (its recordingUrl, from, to, bridge, startedAt, endedAt).",
    );
  }
  if (!(sink instanceof WritableStream) && typeof sink !== "function") {
    throw new TypeError(
      "reportkit client: downloadRecording's sink must be a WritableStream (e.g. Writable.toWeb(fs.createWriteStream(path))) or a function that consumes a ReadableStream.",
    );
  }
  for (const name of ["maxBytes", "timeoutMs"] as const) {
    const value = options[name];
    const max = name === "timeoutMs" ? MAX_TIMER_MS : Number.MAX_SAFE_INTEGER;
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1 || value > max)) {
      throw new TypeError(
        `reportkit client: downloadRecording: \`${name}\` must be a whole number from 1 to ${max}, got ${String(value)}.`,
      );
    }
  }
}
