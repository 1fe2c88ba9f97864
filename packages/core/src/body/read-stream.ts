import { concatBytes } from "@reportkit/wire/internal";
import { startDeadline } from "../async/deadlines.js";
import type { BodyDone, BodyHeaders, NodeStyleStream } from "../receiver/types.js";
import { bodyTimedOut, type ReportkitError, readFailed, tooLarge } from "../reply/errors.js";
import { readsAsText } from "./media-type.js";

const utf8 = new TextDecoder();
const encoder = new TextEncoder();

/**
 * Reads a Node-style stream's whole body as a server must: the declared Content-Length held
 * against `limit` before a byte is read, the bytes against it as they arrive (a body without a
 * length is refused once over, not once buffered), and at the end the bytes received against
 * the declared length. The body is text when core reads its Content-Type as UTF-8, else bytes.
 * Events and a callback, not a promise per chunk: a framework whose body parsers take a callback
 * (Fastify's) then answers a report without a promise.
 * `Receiver.readStream` is this with the receiver's limit.
 */
export function readNodeStream(
  stream: NodeStyleStream,
  headers: BodyHeaders,
  limit: number,
  done: BodyDone,
  timeoutMs?: number,
): void {
  const text = readsAsText(headers["content-type"]);
  readStream(stream, limit, headers["content-length"], text, done, timeoutMs);
}

/**
 * readNodeStream with the Content-Type already read: `text` says whether to decode it. Past
 * `timeoutMs` without the whole body, `request_timeout`.
 */
export function readStream(
  stream: NodeStyleStream,
  limit: number,
  contentLength: string | undefined,
  text: boolean,
  done: BodyDone,
  timeoutMs?: number,
): void {
  const declared = Number(contentLength); // NaN when none was sent
  if (declared > limit) {
    done(tooLarge(limit));
    return;
  }
  const chunks: Uint8Array[] = [];
  let received = 0;
  let settled = false;
  // The listeners stay, so a later stream error has one; a refused body's flow is paused (its
  // reply closes the connection), so the rest of it is not read.
  const settle = (error: ReportkitError | null, body?: string | Uint8Array) => {
    settled = true;
    endDeadline?.();
    if (error !== null) stream.pause?.();
    done(error, body);
  };
  const endDeadline =
    timeoutMs === undefined
      ? undefined
      : startDeadline(timeoutMs, () => {
          if (!settled) settle(bodyTimedOut(timeoutMs));
        });
  stream.on("data", (chunk) => {
    if (settled) return;
    const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
    received += bytes.byteLength;
    if (received > limit || (stream.receivedEncodedLength ?? 0) > limit) settle(tooLarge(limit));
    else chunks.push(bytes);
  });
  stream.on("end", () => {
    if (settled) return;
    // A stream that decodes counts what it took in; that is what the length declared.
    const length = stream.receivedEncodedLength || received;
    if (!Number.isNaN(declared) && length !== declared) {
      settle(readFailed(new Error(`${length} bytes arrived of the ${declared} declared`)));
      return;
    }
    const body = concatBytes(chunks, received);
    settle(null, text ? utf8.decode(body) : body);
  });
  stream.on("error", (error) => {
    if (!settled) settle(readFailed(error));
  });
  stream.resume();
}
