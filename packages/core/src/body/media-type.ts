// What a Content-Type tells the receiver: whether a report can arrive in it, in which format,
// and whether its body is UTF-8 text. The readers (stream, web body) and the decoder import
// these; nothing here reads a body.

/** The formats a report body can arrive in. */
export type BodyFormat = "json" | "urlencoded" | "multipart";

// A Map, not a null-prototype object: that one is a slow dictionary on every request.
const FORMATS = new Map<string, BodyFormat>([
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

/** The media type of a Content-Type value, lowercased, parameters dropped. */
export function mediaType(contentType: string | undefined): string {
  if (contentType === undefined) return "";
  if (contentType === "application/json") return contentType; // what nearly every sender sends
  const semicolon = contentType.indexOf(";");
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

/** Whether a report can arrive in this media type (checked before the body is read). */
export function formatOf(type: string): BodyFormat | undefined {
  return FORMATS.get(type) ?? (type.endsWith("+json") ? "json" : undefined);
}

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;

/** The charset parameter of a Content-Type, lowercased; undefined when it names none. */
export function charsetOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined || contentType.indexOf(";") === -1) return undefined;
  return CHARSET.exec(contentType)?.[1]?.toLowerCase();
}

/** Whether a charset parameter means UTF-8 (no charset does too). */
export function isUtf8Charset(charset: string | undefined): boolean {
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
