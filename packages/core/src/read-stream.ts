import { concatBytes } from "@reportkit/wire/internal";
import type { ReportkitError } from "./errors.js";
import { readsAsText } from "./media-type.js";
import { readFailed, tooLarge } from "./replies.js";
import type { BodyDone, BodyHeaders, NodeStyleStream } from "./types.js";

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
): void {
  readStream(stream, limit, headers["content-length"], readsAsText(headers["content-type"]), done);
}

/** readNodeStream with the Content-Type already read: `text` says whether to decode it. */
export function readStream(
  stream: NodeStyleStream,
  limit: number,
  contentLength: string | undefined,
  text: boolean,
  done: BodyDone,
): void {
  const declared = Number(contentLength); // NaN when none was sent
  if (declared > limit) {
    done(tooLarge(limit));
    return;
  }
  const chunks: Uint8Array[] = [];
  let received = 0;
  let settled = false;
  // The listeners stay: once settled they ignore what follows, so the rest of a refused body
  // drains (the socket stays up for the reply) and a later stream error has a listener.
  const settle = (error: ReportkitError | null, body?: string | Uint8Array) => {
    settled = true;
    done(error, body);
  };
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
