// What a failure journal is handed of a request: never a credential (under a credential's name,
// or the receiver's own secret anywhere); with `bodies: "redacted"`, no phone number (the fields
// that carry one, any digit run as long elsewhere). The rest stays as it came.
import {
  isSecretKey,
  maskDigits,
  REDACTED,
  redactQuery,
  withoutCredentials,
} from "@reportkit/wire/internal";
import { parseLenientJson } from "../base/parse-json.js";
import { formFields, looksLikeJson, mediaType } from "../request/read-body.js";
import type { JournalRequest } from "../store-kit/dedupe-store.js";

export { maskDigits, REDACTED } from "@reportkit/wire/internal";

/** How a request is redacted: its numbers too, or its credentials only. */
export interface Redaction {
  readonly numbers: boolean;
  readonly phoneKeys: ReadonlySet<string>;
  /** The receiver's own secrets, where they are strings: never kept, wherever they appear. */
  readonly secrets: readonly string[];
}

/** `request` as a journal may keep it (see the file's comment). */
export async function redactRequest(
  request: JournalRequest,
  redaction: Redaction,
): Promise<JournalRequest> {
  const { numbers, phoneKeys, secrets } = redaction;
  if (!numbers) {
    // As it came, for `reportkit replay` to send again: only credentials taken out.
    const body =
      request.bodyEncoding === "utf8" ? withoutSecrets(request.body, secrets) : request.body;
    return { ...request, url: withoutSecrets(withoutCredentials(request.url), secrets), body };
  }
  const text = (value: string) => withoutSecrets(maskDigits(value), secrets);
  const form = (query: string) => withoutSecrets(redactQuery(query, phoneKeys), secrets);
  const [path = "", query] = request.url.split(/\?(.*)/s);
  const url = query === undefined ? text(path) : `${text(path)}?${form(query)}`;
  const body = request.bodyEncoding === "base64" ? utf8Of(request.body) : request.body;
  const redacted = { ...request, url, body: "", bodyEncoding: "utf8" } as const;
  // Bytes that are no UTF-8 (a charset of their own): not read here, so not kept.
  if (body === undefined) return redacted;
  const json = looksLikeJson(body) ? parsed(body) : undefined;
  if (json !== undefined) {
    return { ...redacted, body: JSON.stringify(redactValue(json, phoneKeys, text)) };
  }
  const type = mediaType(request.contentType);
  if (type === "application/x-www-form-urlencoded") return { ...redacted, body: form(body) };
  // A multipart body's fields, redacted as a urlencoded form (the boundary and the part
  // headers say nothing); any other body, its digit runs masked.
  const fields =
    type === "multipart/form-data"
      ? await formFields(body, request.contentType ?? "").catch(() => undefined)
      : undefined;
  if (fields === undefined) return { ...redacted, body: text(body) };
  const contentType = "application/x-www-form-urlencoded";
  return { ...redacted, contentType, body: form(new URLSearchParams(fields).toString()) };
}

/** Objects walked: a phone key's or a credential's value replaced, other strings and keys masked. */
function redactValue(
  value: unknown,
  phoneKeys: ReadonlySet<string>,
  text: (value: string) => string,
  depth = 0,
): unknown {
  if (typeof value === "string") return text(value);
  if (typeof value === "number") return text(String(value)) === String(value) ? value : REDACTED;
  if (typeof value !== "object" || value === null) return value;
  // Deeper than a report ever is: nothing of it is kept.
  if (depth > 32) return REDACTED;
  if (Array.isArray(value))
    return value.map((item) => redactValue(item, phoneKeys, text, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const hidden = (phoneKeys.has(key) || isSecretKey(key)) && item !== null && item !== "";
    // Defined, not assigned: a `__proto__` key stays a key.
    Object.defineProperty(out, text(key), {
      value: hidden ? REDACTED : redactValue(item, phoneKeys, text, depth + 1),
      enumerable: true,
      writable: true,
    });
  }
  return out;
}

function withoutSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

function parsed(text: string): unknown {
  try {
    return parseLenientJson(text);
  } catch {
    return undefined;
  }
}

function utf8Of(base64: string): string | undefined {
  try {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
