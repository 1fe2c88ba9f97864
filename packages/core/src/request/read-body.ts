// A request's body, once it is authenticated: its format by its Content-Type, its bytes within the
// time and size limits (never buffered whole), its payload: JSON (leniently) or a form's fields.
import { type BodyChunk, concatBytes, readCapped } from "@reportkit/wire/internal";
import { describeJsonError, parseLenientJson } from "../base/parse-json.js";
import { type BodyStream, headerOf, type ReceiverRequest } from "../base/types.js";
import { within } from "../base/within.js";
import {
  bodyTimedOut,
  invalidForm,
  invalidJson,
  ReportkitError,
  readFailed,
  tooLarge,
  unsupportedMediaType,
} from "../reply/errors.js";

// ---- What its Content-Type says --------------------------------------------------------

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;

export type BodyFormat = "json" | "urlencoded" | "multipart";

// A missing Content-Type is read as JSON, and so is text/plain: PHP senders that forget the
// header, or set the wrong one, still send the JSON report.
const FORMATS = new Map<string, BodyFormat>([
  ["", "json"],
  ["application/json", "json"],
  ["text/json", "json"],
  ["text/plain", "json"],
  ["application/x-www-form-urlencoded", "urlencoded"],
  ["multipart/form-data", "multipart"],
]);

/** The media types a report arrives in (`+json` too), for an adapter's body parsers. */
export const REPORT_MEDIA_TYPES: readonly string[] = [...FORMATS.keys()].filter((t) => t !== "");

/** The media type of a Content-Type value, lowercased, parameters dropped. */
export function mediaType(contentType: string | null | undefined): string {
  return (contentType ?? "").split(";", 1)[0]?.trim().toLowerCase() ?? "";
}

export function otherCharset(contentType: string | null | undefined): string | undefined {
  const charset = CHARSET.exec(contentType ?? "")?.[1];
  return charset === undefined || /^utf-?8$/i.test(charset) ? undefined : charset;
}

export function formatOf(type: string): BodyFormat | undefined {
  return FORMATS.get(type) ?? (type.endsWith("+json") ? "json" : undefined);
}

/** The body's format by its Content-Type, `fallback` without one. @throws ReportkitError 415 */
export function bodyFormat(request: ReceiverRequest, fallback: BodyFormat = "json"): BodyFormat {
  const type = mediaType(headerOf(request.headers, "content-type"));
  const format = type === "" ? fallback : formatOf(type);
  if (format === undefined) throw unsupportedMediaType(type);
  return format;
}

// ---- The bytes -------------------------------------------------------------------------

const encoder = new TextEncoder();

/** The body as text (as a framework read it) or bytes. @throws ReportkitError 413, 408 or 400 */
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

/** A Node request, or any stream that says what arrives by events. */
interface EventStream {
  on(event: string, listener: (chunk?: unknown) => void): unknown;
  removeListener(event: string, listener: (chunk?: unknown) => void): unknown;
  pause(): unknown;
  readonly readableEnded?: boolean;
}

function isEventStream(body: BodyStream): body is BodyStream & EventStream {
  const candidate = body as Partial<EventStream>;
  return typeof candidate.on === "function" && typeof candidate.pause === "function";
}

// A Node stream read by its events: one promise a body where its async iterator makes several a
// chunk (2-3 µs a request on Fastify). Over the limit it is paused, not drained: read no further.
function readEvents(body: EventStream, maxBytes: number): Promise<Uint8Array> {
  if (body.readableEnded === true) return Promise.resolve(new Uint8Array(0));
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let received = 0;
    const stop = () => {
      body.removeListener("data", onData);
      body.removeListener("end", onEnd);
      body.removeListener("error", onError);
    };
    const onData = (data: unknown) => {
      const chunk = typeof data === "string" ? encoder.encode(data) : (data as Uint8Array);
      received += chunk.byteLength;
      if (received <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      stop();
      body.pause();
      reject(tooLarge(maxBytes));
    };
    const onEnd = () => {
      stop();
      resolve(concatBytes(chunks, received));
    };
    const onError = (error: unknown) => {
      stop();
      reject(readFailed(error));
    };
    body.on("data", onData);
    body.on("end", onEnd);
    body.on("error", onError);
  });
}

async function readStream(body: BodyStream, maxBytes: number): Promise<Uint8Array> {
  if (isEventStream(body)) return readEvents(body, maxBytes);
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

// ---- The payload -----------------------------------------------------------------------

const utf8 = new TextDecoder();

/** A body's payload: a JSON value, or a form's fields. @throws ReportkitError 400 */
export async function decodeBody(
  body: string | Uint8Array,
  format: BodyFormat,
  contentType: string | undefined,
): Promise<unknown> {
  if (format === "multipart") {
    // Of repeated names the last value is kept.
    const fields = await formFields(body, contentType ?? "").catch(() => undefined);
    if (fields === undefined) throw invalidForm();
    return Object.fromEntries(fields);
  }
  // A text body may still start with the UTF-8 byte order mark (Windows senders write one):
  // TextDecoder drops it from bytes, a framework that decoded the text first may not.
  const text =
    typeof body === "string" ? body.replace(/^\uFEFF/, "") : decodeText(body, contentType);
  // A PHP sender posting a JSON string without its own Content-Type header gets curl's default,
  // application/x-www-form-urlencoded; the body is still the JSON report.
  if (format === "urlencoded" && !looksLikeJson(text)) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  if (text.trim() === "") throw invalidJson("The body is empty.");
  try {
    return parseLenientJson(text);
  } catch {
    throw invalidJson(`The body is not valid JSON: ${describeJsonError(text)}.`);
  }
}

/** Whether a text is a JSON object or array, by its first character past any space. */
export function looksLikeJson(text: string): boolean {
  return /^\s*[{[]/.test(text);
}

function decodeText(bytes: Uint8Array, contentType: string | undefined): string {
  const charset = otherCharset(contentType);
  if (charset === undefined) return utf8.decode(bytes);
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return utf8.decode(bytes);
  }
}

/** A multipart body's text fields, by the platform's own parser. @throws on a broken body */
export async function formFields(
  body: string | Uint8Array,
  contentType: string,
): Promise<[string, string][]> {
  const bytes = body as string | Uint8Array<ArrayBuffer>;
  const form = await new Response(bytes, { headers: { "content-type": contentType } }).formData();
  return [...form].filter((field): field is [string, string] => typeof field[1] === "string");
}
