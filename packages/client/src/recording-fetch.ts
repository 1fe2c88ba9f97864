// The recording host, within bounds: its URL checked (https unless allowed), redirects followed
// within its origin only, an error answer read no further than needed to tell an expired URL,
// and its body counted against maxBytes as it streams. No credential is ever sent there.
import { RecordingError } from "./errors.js";
import { redactor } from "./redact.js";
import { networkReason } from "./transport.js";

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** How much of an error answer is read, to tell an expired URL from another refusal. */
const ERROR_BODY_BYTES = 4096;

/** The host refused the URL as expired: a fresh one may work. */
export class ExpiredAtHost extends Error {
  constructor(readonly refusal: RecordingError) {
    super(refusal.message);
  }
}

/** The URL parsed, https (or http when allowed). */
export function checkedUrl(url: string, allowHttp: boolean): URL {
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
export async function fetchWithinOrigin(
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
export function countedBody(response: Response, maxBytes: number) {
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

export function tooLarge(maxBytes: number, declared: number | null): RecordingError {
  const said = declared === null ? "" : ` (the host declared ${declared} bytes)`;
  return new RecordingError(
    "too-large",
    `The recording is larger than maxBytes, ${maxBytes} bytes${said}: stopped, the sink aborted, nothing stored as complete. Raise maxBytes in downloadRecording's options if recordings this large are expected.`,
  );
}

export function contentLength(response: Response): number | null {
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
