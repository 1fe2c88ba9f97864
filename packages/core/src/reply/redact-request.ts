// A journal that keeps bodies redacted (`bodies: "redacted"`) gets each request with the phone
// numbers taken out: the fields that carry one (the SMS's `mobile`, the call's `from`, `to` and
// `bridge`, or the composed template's own keys for them) in a JSON body, a form body and the
// query; in whatever else a body holds, and in the error text, every run of seven or more
// digits. The rest of the request stays as it came, so the entry still says what failed; a
// body of bytes that are not UTF-8 is not kept at all.
import type { CompiledTemplate } from "../composed/compile-template.js";
import type { JournalRequest } from "../store-kit/dedupe-store.js";

/** What a phone number is replaced with. */
export const REDACTED = "[redacted]";

/** The wire fields that carry a phone number. */
const PHONE_FIELDS: ReadonlySet<string> = new Set(["mobile", "from", "to", "bridge"]);

/** A run of 7 or more digits, single spaces allowed between them, a leading + taken along. */
const DIGIT_RUN = /\+?\d(?: ?\d){6,}/g;

const FORM_TYPE = "application/x-www-form-urlencoded";

/**
 * Every run of seven or more digits in `text` (a phone number, however written) replaced by
 * `marker`: the one definition for journal bodies and log lines alike.
 */
export function maskDigits(text: string, marker: string = REDACTED): string {
  return text.replace(DIGIT_RUN, marker);
}

/**
 * The keys a phone number comes under: the wire's field names, and with a composed template
 * its own keys for those fields (in its query and its body).
 */
export function phoneKeysOf(template: CompiledTemplate | undefined): ReadonlySet<string> {
  const keys = new Set(PHONE_FIELDS);
  for (const source of template?.sources ?? []) {
    if (source.from !== "path" && PHONE_FIELDS.has(source.placeholder.field)) keys.add(source.key);
  }
  return keys;
}

/** `request` with its phone numbers replaced by REDACTED. */
export function redactRequest(
  request: JournalRequest,
  phoneKeys: ReadonlySet<string>,
): JournalRequest {
  return {
    ...request,
    url: redactUrl(request.url, phoneKeys),
    ...redactBody(request, phoneKeys),
  };
}

function redactUrl(url: string, phoneKeys: ReadonlySet<string>): string {
  const mark = url.indexOf("?");
  const path = maskDigits(mark === -1 ? url : url.slice(0, mark));
  return mark === -1 ? path : `${path}?${redactForm(url.slice(mark + 1), phoneKeys)}`;
}

function redactBody(
  request: JournalRequest,
  phoneKeys: ReadonlySet<string>,
): Pick<JournalRequest, "body" | "bodyEncoding"> {
  const text = request.bodyEncoding === "base64" ? utf8Of(request.body) : request.body;
  // Bytes that are no UTF-8 (a charset of their own): not read here, so not kept.
  if (text === undefined) return { body: "", bodyEncoding: "utf8" };
  const type = (request.contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === FORM_TYPE) return { body: redactForm(text, phoneKeys), bodyEncoding: "utf8" };
  const json = parseJson(text);
  if (json !== undefined) {
    return { body: JSON.stringify(redactValue(json.value, phoneKeys)), bodyEncoding: "utf8" };
  }
  return { body: maskDigits(text), bodyEncoding: "utf8" };
}

function redactForm(text: string, phoneKeys: ReadonlySet<string>): string {
  const params = new URLSearchParams(text);
  const redacted = new URLSearchParams();
  for (const [key, value] of params) {
    redacted.append(key, phoneKeys.has(key) && value !== "" ? REDACTED : maskDigits(value));
  }
  return redacted.toString();
}

/** Objects walked (a phone key's value replaced; other strings masked), arrays too. */
function redactValue(value: unknown, phoneKeys: ReadonlySet<string>, depth = 0): unknown {
  if (typeof value === "string") return maskDigits(value);
  if (typeof value === "number")
    return maskDigits(String(value)) === String(value) ? value : REDACTED;
  if (typeof value !== "object" || value === null) return value;
  // Deeper than a report ever is: nothing of it is kept.
  if (depth > 32) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, phoneKeys, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const kept =
      phoneKeys.has(key) && item !== null && item !== ""
        ? REDACTED
        : redactValue(item, phoneKeys, depth + 1);
    // Defined, not assigned: a `__proto__` key stays a key.
    Object.defineProperty(out, key, { value: kept, enumerable: true, writable: true });
  }
  return out;
}

/** Base64 bytes as UTF-8 text, or undefined when they are not UTF-8. */
function utf8Of(base64: string): string | undefined {
  try {
    const binary = atob(base64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function parseJson(text: string): { value: unknown } | undefined {
  const start = text.trimStart()[0];
  if (start !== "{" && start !== "[") return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}
