// Keeping what could not be processed: a handler that failed or timed out, or a report refused
// as invalid after authentication, goes to the failure journal with its request, so that it
// can be replayed once the cause is fixed instead of being dropped after the provider's retries.

import { withTimeout } from "../promises.js";
import type { RequestContext } from "../request/context.js";
import type { FailureJournal, JournalRecord, JournalRequest } from "../store-kit/dedupe-store.js";
import { ReportkitError } from "./errors.js";

/** Refusals of a report's content (a parser bug would cause them too): kept as `refused`. */
const REFUSED: ReadonlySet<string> = new Set([
  "invalid_json",
  "invalid_report",
  "unrecognized_report",
  "invalid_form",
]);
/** Failures of the app's code or of the receiver itself: kept as `failed`. */
const FAILED: ReadonlySet<string> = new Set([
  "handler_failed",
  "handler_timeout",
  "internal_error",
]);

/** How long a reply waits for the journal to keep a report before it goes out anyway. */
const RECORD_TIMEOUT_MS = 2000;

/**
 * `keep(error, ctx)`: a promise that settles once the journal kept the report (or
 * could not: `onFailure` is told), or undefined when this error is not one to keep. Never
 * for an unauthenticated request.
 */
export function failureKeeper(
  journal: FailureJournal,
  onFailure: (error: ReportkitError) => void,
): (error: ReportkitError, ctx: RequestContext) => Promise<void> | undefined {
  return (error, ctx) => {
    if (!ctx.authenticated) return undefined;
    const status = REFUSED.has(error.code)
      ? "refused"
      : FAILED.has(error.code)
        ? "failed"
        : undefined;
    if (status === undefined) return undefined;
    const request = requestOf(ctx, ctx.rawHeader("content-type"));
    return keyOf(ctx, request)
      .then((key) => {
        const entry: JournalRecord = {
          key,
          kind: ctx.kind ?? null,
          status,
          request,
          error: { code: error.code, message: messageOf(error) },
          at: new Date(),
        };
        return withTimeout(Promise.resolve(journal.record(entry)), RECORD_TIMEOUT_MS);
      })
      .catch((cause: unknown) => onFailure(notKept(cause)));
  };
}

/** The request as it came: method, path and query, Content-Type and body; no other header. */
function requestOf(ctx: RequestContext, contentType: string | undefined): JournalRequest {
  const { body } = ctx;
  let text = "";
  let encoding: JournalRequest["bodyEncoding"] = "utf8";
  let type = contentType ?? null;
  if (typeof body === "string") text = body;
  else if (body instanceof Uint8Array) {
    text = base64(body);
    encoding = "base64";
  } else if (body !== undefined) {
    // Parsed by a framework before reportkit saw it: kept as JSON, which core reads back.
    text = JSON.stringify(body);
    type = "application/json";
  }
  return {
    method: ctx.method,
    url: pathAndQuery(ctx.url),
    contentType: type,
    body: text,
    bodyEncoding: encoding,
  };
}

/**
 * The report's dedupe key; without one (a refusal, a report with no identity), a hash of the
 * request: method, path and query, and body, since a composed GET carries its values in the
 * query.
 */
async function keyOf(ctx: RequestContext, request: JournalRequest): Promise<string> {
  if (ctx.dedupeKey !== undefined) return ctx.dedupeKey;
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

function notKept(cause: unknown): ReportkitError {
  return new ReportkitError(
    "internal_error",
    "The failure journal could not keep this report (the reply was sent without it).",
    { cause },
  );
}
