import { ReportkitError } from "./errors.js";
import { concat, type NodeStyleStream, readStream } from "./read-stream.js";
import { readFailed, tooLarge } from "./replies.js";

/**
 * A web `Request` (or `Response`) whose body is still unread. Core reads it whole with
 * `text()` or `arrayBuffer()` when the request declares a Content-Length (checked against
 * `maxBodyBytes` first, and the runtime never delivers more than it), which runtimes such as
 * @hono/node-server serve far faster than the stream; without one, it reads `body` under the
 * limit.
 */
export interface WebBody {
  readonly body: ReadableStream<Uint8Array> | null;
  readonly bodyUsed: boolean;
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/**
 * A request body as an adapter has it: text, bytes, a stream not yet read (web or Node), a
 * web Request with its body unread, an object some framework middleware already parsed, or
 * nothing.
 */
export type ReceiverBody =
  | string
  | Uint8Array
  | ArrayBuffer
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>
  | WebBody
  | Record<string, unknown>
  | readonly unknown[]
  | null
  | undefined;

/** What readBody returns: text or bytes to decode, or an object parsed upstream. */
export type BodyContent =
  | string
  | Uint8Array
  | Record<string, unknown>
  | readonly unknown[]
  | undefined;

/**
 * Reads a body with the size limit applied while reading, so an oversized body is refused
 * after `limit` bytes, not after it was all buffered. For a body still to be read:
 * `contentLength` as the request declared it, and whether core reads the body as UTF-8 `text`.
 * @throws ReportkitError `payload_too_large` or `body_read_failed`
 */
export function readBody(
  body: ReceiverBody,
  limit: number,
  contentLength?: string,
  text = false,
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
      return body.body === null ? undefined : readWebStream(body.body, limit);
    const read = text ? body.text() : body.arrayBuffer();
    return read.then(
      (content) => readBody(content, limit) as BodyContent,
      (error: unknown) => {
        throw readFailed(error);
      },
    );
  }
  if (typeof (body as ReadableStream).getReader === "function") {
    return readWebStream(body as ReadableStream<Uint8Array>, limit);
  }
  if (isNodeStyleStream(body)) {
    return new Promise((resolve, reject) => {
      readStream(body, limit, contentLength, text, (error, content) => {
        if (error === null) resolve(content);
        else reject(error);
      });
    });
  }
  if (Symbol.asyncIterator in body) return readIterable(body as AsyncIterable<Uint8Array>, limit);
  return body as Record<string, unknown>;
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
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        reader.cancel().catch(() => {});
        throw tooLarge(limit);
      }
      chunks.push(value);
    }
  } catch (error) {
    throw error instanceof ReportkitError ? error : readFailed(error);
  }
  return concat(chunks, size);
}

async function readIterable(iterable: AsyncIterable<Uint8Array>, limit: number) {
  // Driven by hand: a for-await `break` would destroy a Node request stream and with it the
  // socket the 413 reply has to go out on.
  const iterator = iterable[Symbol.asyncIterator]();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await iterator.next();
      if (done) break;
      const chunk = typeof value === "string" ? new TextEncoder().encode(value) : value;
      size += chunk.byteLength;
      if (size > limit) throw tooLarge(limit);
      chunks.push(chunk);
    }
  } catch (error) {
    throw error instanceof ReportkitError ? error : readFailed(error);
  }
  return concat(chunks, size);
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
