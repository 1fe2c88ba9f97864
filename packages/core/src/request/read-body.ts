// A request's body, read once it is authenticated, within its time limit and under its size
// limit: the declared length first, then the bytes as they arrive (never buffered whole).
import { type BodyChunk, readCapped } from "@reportkit/wire/internal";
import { type BodyStream, headerOf, type ReceiverRequest } from "../base/types.js";
import { within } from "../base/within.js";
import { bodyTimedOut, ReportkitError, readFailed, tooLarge } from "../reply/errors.js";

const encoder = new TextEncoder();

/**
 * The body as text (what an adapter's framework read already) or bytes (what core read).
 * @throws ReportkitError 413, 408, or 400 `body_read_failed` (fewer or more bytes than declared)
 */
export async function readBody(
  request: ReceiverRequest,
  limits: { readonly maxBytes: number; readonly timeoutMs: number },
): Promise<string | Uint8Array> {
  const { body } = request;
  const { maxBytes } = limits;
  if (body === null || body === undefined) return "";
  if (typeof body === "string") {
    if (body.length > maxBytes / 3 && encoder.encode(body).byteLength > maxBytes) {
      throw tooLarge(maxBytes);
    }
    return body;
  }
  if (body instanceof Uint8Array) {
    if (body.byteLength > maxBytes) throw tooLarge(maxBytes);
    return body;
  }
  const declared = Number(headerOf(request.headers, "content-length") ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const bytes = await within(readStream(body, maxBytes), limits.timeoutMs, () => {
    throw bodyTimedOut(limits.timeoutMs);
  });
  if (!Number.isNaN(declared) && bytes.byteLength !== declared) {
    throw readFailed(new Error(`${bytes.byteLength} bytes arrived of the ${declared} declared`));
  }
  return bytes;
}

async function readStream(body: BodyStream, maxBytes: number): Promise<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    // A web stream by its own reader (not every runtime makes it iterable); anything else, a
    // Node request among them, by its iterator, driven by hand: a for-await `break` would
    // destroy a Node request, and with it the socket the 413 reply has to go out on.
    let next: () => Promise<BodyChunk>;
    if (isWebStream(body)) {
      const web = body.getReader();
      reader = web;
      next = () => web.read();
    } else {
      const iterator = body[Symbol.asyncIterator]();
      next = () => iterator.next();
    }
    const read = await readCapped(next, maxBytes);
    if (read.ok) return read.bytes;
  } catch (error) {
    // A web body already read, a connection reset: the body cannot be read to its end. A
    // refusal of the adapter's framework (a 413 of its own) is answered as it is.
    throw error instanceof ReportkitError ? error : readFailed(error);
  }
  reader?.cancel().catch(() => {});
  throw tooLarge(maxBytes);
}

function isWebStream(body: BodyStream): body is ReadableStream<Uint8Array> {
  return typeof (body as ReadableStream<Uint8Array>).getReader === "function";
}
