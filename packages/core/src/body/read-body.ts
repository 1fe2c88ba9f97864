import { type CappedBody, readCapped } from "@reportkit/wire/internal";
import type { NodeStyleStream, ReceiverBody, WebBody } from "../receiver/types.js";
import { ReportkitError } from "../reply/errors.js";
import { bodyTimedOut, readFailed, tooLarge } from "../reply/replies.js";
import { endDeadline, startDeadline } from "./body-deadlines.js";
import type { BodyContent } from "./media-type.js";
import { readStream } from "./read-stream.js";

/**
 * Reads a body with the size limit applied while reading, so an oversized body is refused
 * after `limit` bytes, not after it was all buffered. For a body still to be read:
 * `contentLength` as the request declared it, whether core reads the body as UTF-8 `text`, and
 * how long it may take to arrive (`timeoutMs`).
 * @throws ReportkitError `payload_too_large`, `body_read_failed` or `request_timeout`
 */
export function readBody(
  body: ReceiverBody,
  limit: number,
  contentLength?: string,
  text = false,
  timeoutMs?: number,
): BodyContent | Promise<BodyContent> {
  if (body === undefined || body === null) return undefined;
  // A scalar a framework parsed (a JSON 5 or true) is no stream: parsing will say it is no report.
  if (typeof body !== "object" && typeof body !== "string") return body as unknown as BodyContent;
  if (typeof body === "string") {
    if (body.length > limit / 3 && utf8Length(body) > limit) throw tooLarge(limit);
    return body;
  }
  if (body instanceof Uint8Array) {
    if (body.byteLength > limit) throw tooLarge(limit);
    return body;
  }
  if (body instanceof ArrayBuffer) return readBody(new Uint8Array(body), limit);
  if (isWebBody(body)) {
    if (contentLength === undefined)
      return body.body === null ? undefined : within(readWebStream(body.body, limit), timeoutMs);
    const read = text ? body.text() : body.arrayBuffer();
    return within(
      read.then(
        (content) => readBody(content, limit) as BodyContent,
        (error: unknown) => {
          throw readFailed(error);
        },
      ),
      timeoutMs,
    );
  }
  if (typeof (body as ReadableStream).getReader === "function") {
    return within(readWebStream(body as ReadableStream<Uint8Array>, limit), timeoutMs);
  }
  if (isNodeStyleStream(body)) {
    return new Promise((resolve, reject) => {
      const done = (error: ReportkitError | null, content?: string | Uint8Array) => {
        if (error === null) resolve(content);
        else reject(error);
      };
      readStream(body, limit, contentLength, text, done, timeoutMs);
    });
  }
  if (Symbol.asyncIterator in body) {
    return within(readIterable(body as AsyncIterable<Uint8Array>, limit), timeoutMs);
  }
  return body as Record<string, unknown>;
}

/** `reading`, or a `request_timeout` rejection once `timeoutMs` passed first. */
function within<T>(reading: Promise<T>, timeoutMs: number | undefined): Promise<T> {
  if (timeoutMs === undefined) return reading;
  return new Promise((resolve, reject) => {
    const deadline = startDeadline(timeoutMs, () => reject(bodyTimedOut(timeoutMs)));
    reading.then(
      (value) => {
        endDeadline(deadline);
        resolve(value);
      },
      (error: unknown) => {
        endDeadline(deadline);
        reject(error);
      },
    );
  });
}

function isNodeStyleStream(body: object): body is NodeStyleStream {
  return (
    typeof (body as NodeStyleStream).on === "function" &&
    typeof (body as NodeStyleStream).resume === "function"
  );
}

function isWebBody(body: object): body is WebBody {
  return (
    typeof (body as WebBody).arrayBuffer === "function" &&
    typeof (body as WebBody).text === "function" &&
    "bodyUsed" in body
  );
}

async function readWebStream(stream: ReadableStream<Uint8Array>, limit: number) {
  const reader = stream.getReader();
  let read: CappedBody;
  try {
    read = await readCapped(() => reader.read(), limit);
  } catch (error) {
    throw error instanceof ReportkitError ? error : readFailed(error);
  }
  if (!read.ok) {
    reader.cancel().catch(() => {});
    throw tooLarge(limit);
  }
  return read.bytes;
}

async function readIterable(iterable: AsyncIterable<Uint8Array>, limit: number) {
  // Driven by hand: a for-await `break` would destroy a Node request stream and with it the
  // socket the 413 reply has to go out on.
  const iterator = iterable[Symbol.asyncIterator]();
  let read: CappedBody;
  try {
    read = await readCapped(() => iterator.next(), limit);
  } catch (error) {
    throw error instanceof ReportkitError ? error : readFailed(error);
  }
  if (!read.ok) throw tooLarge(limit);
  return read.bytes;
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** A body whose reading fails with `error`, as the framework's read of it did. */
export function failedBody(error: ReportkitError): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }),
  };
}
