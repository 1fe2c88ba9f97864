import { invalidJson } from "../reply/errors.js";
import type { BodyContent } from "./classify-body.js";
import { describeJsonError } from "./json-error-position.js";
import { parseLenientJson } from "./lenient-json.js";
import { type BodyFormat, charsetOf, isUtf8Charset } from "./media-type.js";
import { parseMultipart } from "./parse-multipart.js";
import { fromParsedForm } from "./parsed-form.js";

const utf8 = new TextDecoder();

/**
 * Turns a body into the payload object: JSON, urlencoded or multipart fields (values as
 * strings), or the object a framework already parsed.
 * @throws ReportkitError `invalid_json` or `invalid_form`
 */
export function decodeBody(
  content: BodyContent,
  format: BodyFormat,
  contentType: string | undefined,
): unknown {
  if (content.form === "parsed") {
    // Parsed upstream: a form parser's object is brought back to core's own reading of forms.
    const { value } = content;
    return format === "json" || typeof value !== "object" || Array.isArray(value)
      ? value
      : fromParsedForm(value as Record<string, unknown>);
  }
  const raw =
    content.form === "text" ? content.text : content.form === "bytes" ? content.bytes : "";
  if (format === "multipart") return parseMultipart(raw, contentType ?? "");
  // A text body may still start with the UTF-8 byte order mark (Windows senders write one):
  // TextDecoder drops it from bytes, a framework that decoded the text first may not.
  const text =
    typeof raw === "string"
      ? raw.charCodeAt(0) === 0xfeff
        ? raw.slice(1)
        : raw
      : decodeText(raw, contentType);
  if (format === "urlencoded" && !looksLikeJson(text)) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  if (text.trim() === "") throw invalidJson("The body is empty.");
  try {
    return parseLenientJson(text);
  } catch {
    // Not V8's message: it quotes the body, control characters and newlines included.
    throw invalidJson(`The body is not valid JSON: ${describeJsonError(text)}.`);
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

function decodeText(bytes: Uint8Array, contentType: string | undefined): string {
  const charset = charsetOf(contentType);
  if (isUtf8Charset(charset)) return utf8.decode(bytes);
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return utf8.decode(bytes);
  }
}
