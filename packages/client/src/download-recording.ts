import { PROVIDER_TIME_ZONE, recordingExpiry } from "@reportkit/wire";
import { type Client, MAX_TIMER_MS } from "./create-client.js";
import { RecordingError } from "./errors.js";
import { instantOf, type RecordedCall } from "./recorded-call.js";
import { redactor } from "./redact.js";
import { networkReason } from "./transport.js";
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
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** How much of an error answer is read, to tell an expired URL from another refusal. */
const ERROR_BODY_BYTES = 4096;

/** The host refused the URL as expired: a fresh one may work. */
class ExpiredAtHost extends Error {
  constructor(readonly refusal: RecordingError) {
    super(refusal.message);
  }
}

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

/** The URL parsed, https (or http when allowed). */
function checkedUrl(url: string, allowHttp: boolean): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RecordingError(
      "insecure-url",
      "The recording URL is not an absolute URL: the report's recording_url cannot be downloaded.",
    );
  }
  if (parsed.protocol === "https:" || (allowHttp && parsed.protocol === "http:")) return parsed;
  const http = parsed.protocol === "http:";
  throw new RecordingError(
    "insecure-url",
    http
      ? `The recording URL is http, not https (host ${parsed.host}): refused, it would travel in the clear. Pass allowHttp: true for a local sandbox.`
      : `The recording URL's scheme is ${parsed.protocol} (host ${parsed.host}): only https (and http with allowHttp) is downloaded.`,
  );
}

/**
 * GET without a credential, following redirects within the URL's origin only.
 * @throws RecordingError "redirect-refused", "network", "http-status"; ExpiredAtHost
 */
async function fetchWithinOrigin(
  fetch: typeof globalThis.fetch,
  start: URL,
  signal: AbortSignal,
): Promise<Response> {
  let target = start;
  for (let hop = 0; ; hop++) {
    let response: Response;
    try {
      response = await fetch(target, {
        method: "GET",
        headers: { accept: "audio/*, */*;q=0.8" },
        redirect: "manual",
        signal,
      });
    } catch (cause) {
      if (signal.aborted) throw cause;
      throw new RecordingError(
        "network",
        `Could not reach the recording host ${target.host} (${networkReason(cause)}).`,
        { cause },
      );
    }
    if (response.type === "opaqueredirect") {
      throw new RecordingError(
        "redirect-refused",
        `The recording host ${start.host} redirected the download where this runtime does not show: not followed.`,
      );
    }
    if (REDIRECTS.has(response.status)) {
      await response.body?.cancel().catch(() => {});
      const location = response.headers.get("location");
      const next = location === null ? undefined : safeUrl(location, target);
      if (next === undefined || next.origin !== start.origin) {
        const where = next === undefined ? "nowhere readable" : `another origin, ${next.origin}`;
        throw new RecordingError(
          "redirect-refused",
          `The recording host ${start.host} redirected the download (${response.status}) to ${where}: not followed. A recording is taken from the host its URL names only.`,
          { status: response.status },
        );
      }
      if (hop === MAX_REDIRECTS) {
        throw new RecordingError(
          "redirect-refused",
          `The recording host ${start.host} redirected the download more than ${MAX_REDIRECTS} times: not followed further.`,
          { status: response.status },
        );
      }
      target = next;
      continue;
    }
    if (response.status === 200) return response;
    throw await refusal(response, start);
  }
}

/** The error for a non-200 answer: ExpiredAtHost when it says the URL expired. */
async function refusal(response: Response, url: URL): Promise<Error> {
  const text = await headOf(response);
  const code = /<Code>([A-Za-z]{1,64})<\/Code>/.exec(text)?.[1];
  const said = /<Message>([^<]{1,200})<\/Message>/.exec(text)?.[1];
  // The URL's query values (its signature, its key id) never reach a message.
  const redact = redactor([...url.searchParams.values()].filter((v) => v.length >= 8));
  const detail =
    code === undefined ? "" : `: ${code}${said === undefined ? "" : ` (${redact(said)})`}`;
  const error = new RecordingError(
    "http-status",
    `The recording host ${url.host} answered ${response.status}${detail}.`,
    { status: response.status },
  );
  const expired =
    response.status === 410 ||
    ((response.status === 403 || response.status === 404) && /expired/i.test(text));
  return expired ? new ExpiredAtHost(error) : error;
}

/** The first ERROR_BODY_BYTES of an answer as text; the rest is not read. */
async function headOf(response: Response): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < ERROR_BODY_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // What was read is enough to tell; a failing error body is no reason of its own.
  } finally {
    await reader.cancel().catch(() => {});
  }
  const decoder = new TextDecoder();
  return chunks
    .map((chunk) => decoder.decode(chunk, { stream: true }))
    .join("")
    .slice(0, ERROR_BODY_BYTES);
}

/**
 * The response body through a byte count: errors "too-large" past `maxBytes` (cancelling the
 * download), remembers whether the source itself failed, and whether it was read to its end.
 */
function countedBody(response: Response, maxBytes: number) {
  const reader = response.body?.getReader();
  let bytes = 0;
  let complete = false;
  let failure: RecordingError | undefined;
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (reader === undefined) {
          complete = true;
          controller.close();
          return;
        }
        let step: ReadableStreamReadResult<Uint8Array>;
        try {
          step = await reader.read();
        } catch (cause) {
          failure = new RecordingError(
            "network",
            `The recording host's answer broke off after ${bytes} bytes (${networkReason(cause)}).`,
            { cause },
          );
          throw failure;
        }
        if (step.done) {
          complete = true;
          controller.close();
          return;
        }
        bytes += step.value.byteLength;
        if (bytes > maxBytes) {
          failure = tooLarge(maxBytes, null);
          await reader.cancel(failure).catch(() => {});
          controller.error(failure);
          return;
        }
        controller.enqueue(step.value);
      },
      cancel(reason) {
        return reader?.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return {
    stream,
    bytes: () => bytes,
    complete: () => complete,
    /** Why the source failed (too large, broken off); undefined when it did not. */
    failure: () => failure,
  };
}

function tooLarge(maxBytes: number, declared: number | null): RecordingError {
  const said = declared === null ? "" : ` (the host declared ${declared} bytes)`;
  return new RecordingError(
    "too-large",
    `The recording is larger than maxBytes, ${maxBytes} bytes${said}: stopped, the sink aborted, nothing stored as complete. Raise maxBytes in downloadRecording's options if recordings this large are expected.`,
  );
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

function contentLength(response: Response): number | null {
  const header = response.headers.get("content-length");
  return header !== null && /^\d+$/.test(header.trim()) ? Number(header) : null;
}

function safeUrl(location: string, base: URL): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
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
