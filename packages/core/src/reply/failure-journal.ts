// Keeping what could not be processed: a handler that failed or timed out, or a report refused
// as invalid after authentication, goes to the failure journal with its request, so that it
// can be replayed once the cause is fixed instead of being dropped after the provider's retries.
// Which codes are kept, and as what, is their row of the error table.
import { answeredWithin } from "../async/deadlines.js";
import type { ClassifiedBody } from "../body/classify-body.js";
import type { RequestState } from "../request/request-state.js";
import type { FailureJournal, JournalRecord, JournalRequest } from "../store-kit/dedupe-store.js";
import { ruleOf } from "./error-table.js";
import { journalNotKept, type ReportkitError } from "./errors.js";
import { maskDigits, redactRequest } from "./redact-request.js";

/** How long a reply waits for the journal to keep a report before it goes out anyway. */
const RECORD_TIMEOUT_MS = 2000;

/**
 * `keep(error, request)`: a promise that settles once the journal kept the report (or could
 * not: `onFailure` is told; it never rejects), or undefined when this error is not one to keep.
 * Never for an unauthenticated request. `phoneKeys`: where a redacting journal finds numbers.
 */
export function failureKeeper(
  journal: FailureJournal,
  onFailure: (error: ReportkitError) => void,
  phoneKeys: ReadonlySet<string>,
): (error: ReportkitError, request: RequestState) => Promise<void> | undefined {
  return (error, request) => {
    const status = ruleOf(error.code).journal;
    if (status === undefined || !request.authenticated) return undefined;
    return Promise.resolve()
      .then(async () => {
        const asCame = requestOf(request);
        const redacted = journal.bodies === "redacted";
        // A refusal's key is the hash of the request as it came: the same for each copy.
        const key = request.dedupeKey ?? (await hashOf(asCame));
        const message = messageOf(error);
        const entry: JournalRecord = {
          key,
          kind: request.kind ?? null,
          status,
          request: redacted ? redactRequest(asCame, phoneKeys) : asCame,
          error: { code: error.code, message: redacted ? maskDigits(message) : message },
          at: new Date(),
        };
        await answeredWithin(Promise.resolve(journal.record(entry)), RECORD_TIMEOUT_MS);
      })
      .catch((cause: unknown) => onFailure(journalNotKept(cause)));
  };
}

/** The request as it came: method, path and query, Content-Type and body; no other header. */
function requestOf(request: RequestState): JournalRequest {
  const { text, encoding, parsed } = bodyOf(request.body);
  return {
    method: request.method,
    url: pathAndQuery(request.url),
    // Parsed by a framework before reportkit saw it: kept as JSON, which core reads back.
    contentType: parsed ? "application/json" : (request.header("content-type") ?? null),
    body: text,
    bodyEncoding: encoding,
  };
}

function bodyOf(body: ClassifiedBody): {
  text: string;
  encoding: JournalRequest["bodyEncoding"];
  parsed: boolean;
} {
  switch (body.form) {
    case "text":
      return { text: body.text, encoding: "utf8", parsed: false };
    case "bytes":
      return { text: base64(body.bytes), encoding: "base64", parsed: false };
    case "parsed":
      return { text: safeJson(body.value), encoding: "utf8", parsed: true };
    default:
      // Nothing, or a body never read (the refusal came first): nothing to keep of it.
      return { text: "", encoding: "utf8", parsed: false };
  }
}

/**
 * JSON of what a framework parsed, however deep: a body nested past the stack's depth (12,000
 * arrays, say) is kept as the text that says so rather than throw out of the reply.
 */
function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return JSON.stringify({ reportkit_unserialisable_body: reason });
  }
}

/**
 * Without a report's own key (a refusal, a report with no identity), a hash of the request:
 * method, path and query, and body, since a composed GET carries its values in the query.
 */
async function hashOf(request: JournalRequest): Promise<string> {
  const text = `${request.method} ${request.url}\n${request.body}`;
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  let hex = "";
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, "0");
  return `sha256:${hex}`;
}

/** The reply's message, and the handler's own error after it: what the app's fix needs. */
function messageOf(error: ReportkitError): string {
  const { cause } = error;
  if (cause === undefined) return error.message;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return reason === "" ? error.message : `${error.message} Cause: ${reason}`;
}

function pathAndQuery(url: string): string {
  if (url.startsWith("/")) return url;
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
