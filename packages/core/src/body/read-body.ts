import { type CappedBody, readCapped } from "@reportkit/wire/internal";
import { within } from "../async/deadlines.js";
import type { MaybePromise } from "../async/maybe-promise.js";
import { bodyTimedOut, ReportkitError, readFailed, tooLarge } from "../reply/errors.js";
import { type BodyContent, type ClassifiedBody, classifyBody, NO_BODY } from "./classify-body.js";
import { readStream } from "./read-stream.js";

/**
 * Reads a body with the size limit applied while reading, so an oversized body is refused
 * after `limit` bytes, not after it was all buffered. For a body still to be read:
 * `contentLength` as the request declared it, whether core reads the body as UTF-8 `text`, and
 * how long it may take to arrive (`timeoutMs`). A body in hand is measured and returned as is.
 * @throws ReportkitError `payload_too_large`, `body_read_failed` or `request_timeout`
 */
export function readBody(
  body: ClassifiedBody,
  limit: number,
  contentLength?: string,
  text = false,
  timeoutMs?: number,
): MaybePromise<BodyContent> {
  switch (body.form) {
    case "none":
    case "parsed":
      return body;
    case "text":
      if (body.text.length > limit / 3 && utf8Length(body.text) > limit) throw tooLarge(limit);
      return body;
    case "bytes":
      if (body.bytes.byteLength > limit) throw tooLarge(limit);
      return body;
    case "failed":
      throw body.error;
    case "web-body": {
      const web = body.body;
      if (contentLength === undefined) {
        return web.body === null ? NO_BODY : bounded(readWebStream(web.body, limit), timeoutMs);
      }
      const read: Promise<string | ArrayBuffer> = text ? web.text() : web.arrayBuffer();
      return bounded(
        read.then(
          (content) => readBody(classifyBody(content), limit) as BodyContent,
          (error: unknown) => {
            throw readFailed(error);
          },
        ),
        timeoutMs,
      );
    }
    case "web-stream":
      return bounded(readWebStream(body.stream, limit), timeoutMs);
    case "node-stream":
      return new Promise((resolve, reject) => {
        readStream(
          body.stream,
          limit,
          contentLength,
          text,
          (error, content) => {
            if (error !== null) reject(error);
            else resolve(classifyBody(content) as BodyContent);
          },
          timeoutMs,
        );
      });
    case "iterable":
      return bounded(readIterable(body.iterable, limit), timeoutMs);
  }
}

/** `reading`, or a `request_timeout` rejection once `timeoutMs` passed first. */
function bounded<T>(reading: Promise<T>, timeoutMs: number | undefined): Promise<T> {
  if (timeoutMs === undefined) return reading;
  return within(reading, timeoutMs, () => {
    throw bodyTimedOut(timeoutMs);
  });
}

async function readWebStream(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<BodyContent> {
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
  return { form: "bytes", bytes: read.bytes };
}

async function readIterable(
  iterable: AsyncIterable<Uint8Array | string>,
  limit: number,
): Promise<BodyContent> {
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
  return { form: "bytes", bytes: read.bytes };
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
