// What could not be processed goes to the failure journal with its request, to be replayed once
// the cause is fixed rather than dropped after the provider's retries (which: the error table).
import type { ReportKind } from "@reportkit/wire";
import { headerOf, type ReceiverRequest } from "../base/types.js";
import { answeredWithin } from "../base/within.js";
import { ruleOf } from "../reply/error-table.js";
import { journalNotKept, type ReportkitError } from "../reply/errors.js";
import { sha256Hex } from "../report/dedupe-key.js";
import type { Access } from "../request/authenticate.js";
import { mediaType, otherCharset } from "../request/read-body.js";
import type { FailureJournal, JournalRecord, JournalRequest } from "../store-kit/dedupe-store.js";
import { maskDigits, type Redaction, redactRequest } from "./redact-request.js";

const RECORD_TIMEOUT_MS = 2000;

/** What the journal is told of one attempt besides the error. */
export interface Attempt {
  readonly request: ReceiverRequest;
  /** Only a request that carried the secret is kept. */
  access?: Access;
  /** The body as it was read (text or bytes), when it was. */
  body?: string | Uint8Array;
  kind?: ReportKind;
  dedupeKey?: string;
}

/** Keeps an authenticated attempt when its error's row says so. Never rejects. */
export async function keepFailure(
  journal: FailureJournal,
  error: ReportkitError,
  attempt: Attempt,
  redaction: Omit<Redaction, "numbers">,
  onFailure: (error: ReportkitError) => void,
): Promise<void> {
  const status = ruleOf(error.code).journal;
  if (status === undefined || attempt.access !== "secret") return;
  try {
    const redacted = journal.bodies === "redacted";
    const request = await redactRequest(requestOf(attempt), { ...redaction, numbers: redacted });
    const message = messageOf(error);
    // Without a report's own key (a refusal, a report with no identity), a hash of the request as
    // it came (a composed GET carries its values in the query): the same for each copy.
    const asCame = `${request.method} ${request.url}\n${request.body}`;
    const entry: JournalRecord = {
      key: attempt.dedupeKey ?? `sha256:${sha256Hex(asCame)}`,
      kind: attempt.kind ?? null,
      status,
      request,
      error: { code: error.code, message: redacted ? maskDigits(message) : message },
      at: new Date(),
    };
    await answeredWithin(Promise.resolve(journal.record(entry)), RECORD_TIMEOUT_MS);
  } catch (cause) {
    onFailure(journalNotKept(cause));
  }
}

/** The request as it came (no header but Content-Type); the body as text when it is UTF-8. */
function requestOf(attempt: Attempt): JournalRequest {
  const { request, body } = attempt;
  const contentType = headerOf(request.headers, "content-type") ?? null;
  // Nothing, or a body never read (the refusal came first): nothing to keep of it.
  const text =
    body === undefined ? "" : typeof body === "string" ? body : utf8Text(body, contentType);
  return {
    method: request.method,
    url: pathAndQuery(request.url),
    contentType,
    body: text ?? base64(body as Uint8Array),
    bodyEncoding: text === undefined ? "base64" : "utf8",
  };
}

/** Bytes as text, when their Content-Type says UTF-8 (or no charset) and they are UTF-8. */
function utf8Text(bytes: Uint8Array, contentType: string | null): string | undefined {
  if (mediaType(contentType).startsWith("multipart/") || otherCharset(contentType) !== undefined) {
    return undefined;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
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
