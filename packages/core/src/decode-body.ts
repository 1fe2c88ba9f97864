import { ReportkitError } from "./errors.js";
import { parseLenientJson } from "./lenient-json.js";
import { parseMultipart } from "./parse-multipart.js";
import { fromParsedForm } from "./parsed-form.js";
import type { BodyContent } from "./read-body.js";

export type BodyFormat = "json" | "urlencoded" | "multipart";
type Format = BodyFormat;

// A Map, not a null-prototype object: that one is a slow dictionary on every request.
const FORMATS = new Map<string, Format>([
  // A missing Content-Type is read as JSON, and so is text/plain: PHP senders that forget
  // the header, or set the wrong one, still send the JSON report.
  ["", "json"],
  ["application/json", "json"],
  ["text/json", "json"],
  ["text/plain", "json"],
  ["application/x-www-form-urlencoded", "urlencoded"],
  ["multipart/form-data", "multipart"],
]);

/**
 * The media types a report can arrive in, lowercase (`+json` types are read as JSON too): for an
 * adapter that registers a body parser per type.
 */
export const REPORT_MEDIA_TYPES: readonly string[] = [...FORMATS.keys()].filter((t) => t !== "");

const utf8 = new TextDecoder();

/** The media type of a Content-Type value, lowercased, parameters dropped. */
export function mediaType(contentType: string | undefined): string {
  if (contentType === undefined) return "";
  if (contentType === "application/json") return contentType; // what nearly every sender sends
  const semicolon = contentType.indexOf(";");
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

/** Whether a report can arrive in this media type (checked before the body is read). */
export function formatOf(type: string): Format | undefined {
  return FORMATS.get(type) ?? (type.endsWith("+json") ? "json" : undefined);
}

export function unsupportedMediaType(contentType: string): ReportkitError {
  return new ReportkitError(
    "unsupported_media_type",
    `Content-Type "${contentType.slice(0, 100)}" cannot carry a report. Send application/json, application/x-www-form-urlencoded or multipart/form-data.`,
  );
}

/**
 * Turns a body into the payload object: JSON, urlencoded or multipart fields (values as
 * strings), or the object a framework already parsed.
 * @throws ReportkitError `invalid_json` or `invalid_form`
 */
export function decodeBody(
  content: BodyContent,
  format: Format,
  contentType: string | undefined,
): unknown {
  if (content !== undefined && typeof content !== "string" && !(content instanceof Uint8Array)) {
    // Parsed upstream: a form parser's object is brought back to core's own reading of forms.
    return format === "json" || Array.isArray(content)
      ? content
      : fromParsedForm(content as Record<string, unknown>);
  }
  if (format === "multipart") return parseMultipart(content ?? "", contentType ?? "");
  // A text body may still start with the UTF-8 byte order mark (Windows senders write one):
  // TextDecoder drops it from bytes, a framework that decoded the text first may not.
  const text =
    typeof content === "string"
      ? content.charCodeAt(0) === 0xfeff
        ? content.slice(1)
        : content
      : decodeText(content, contentType);
  if (format === "urlencoded" && !looksLikeJson(text)) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  if (text.trim() === "") {
    throw new ReportkitError(
      "invalid_json",
      "The body is empty; send the report as a JSON object.",
    );
  }
  try {
    return parseLenientJson(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ReportkitError(
      "invalid_json",
      `The body is not valid JSON (${reason.slice(0, 200)}). Send the report as a JSON object.`,
    );
  }
}

// A PHP sender posting a JSON string without its own Content-Type header gets curl's
// default, application/x-www-form-urlencoded; the body is still the JSON report.
function looksLikeJson(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) return true;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09 && c !== 0xfeff) return false;
  }
  return false;
}

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;

function charsetOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined || contentType.indexOf(";") === -1) return undefined;
  return CHARSET.exec(contentType)?.[1]?.toLowerCase();
}

function isUtf8Charset(charset: string | undefined): boolean {
  return charset === undefined || charset === "utf-8" || charset === "utf8";
}

/** Whether a body of this Content-Type is UTF-8 text (no charset says so too). */
export function isUtf8(contentType: string | undefined): boolean {
  return isUtf8Charset(charsetOf(contentType));
}

/**
 * Whether core reads a body of this Content-Type as text decoded as UTF-8, so an adapter may
 * hand it over decoded; otherwise core needs the bytes (multipart parts and other charsets
 * are decoded by core).
 */
export function readsAsText(contentType: string | undefined): boolean {
  if (contentType === "application/json") return true; // what nearly every sender sends
  return formatOf(mediaType(contentType)) !== "multipart" && isUtf8(contentType);
}

function decodeText(bytes: Uint8Array | undefined, contentType: string | undefined): string {
  if (bytes === undefined) return "";
  const charset = charsetOf(contentType);
  if (isUtf8Charset(charset)) return utf8.decode(bytes);
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return utf8.decode(bytes);
  }
}
