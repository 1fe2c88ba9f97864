import type { BearerResult } from "./check-bearer.js";
import type { ReceiverResponse, RefusalCode } from "./create-receiver.js";
import { ReportkitError } from "./errors.js";

// Every reply the receiver sends, built here so that status, headers and body always agree.

const JSON_HEADERS = Object.freeze({ "content-type": "application/json" });
export const OK = fixedReply(200, '{"ok":true}');
/** A retry of a report already processed: acknowledged, the handler not run again. */
export const DUPLICATE = fixedReply(200, '{"ok":true,"duplicate":true}');
/** Queue mode: the report is stored durably and will be processed by a worker. */
export const QUEUED = fixedReply(202, '{"ok":true,"queued":true}');

/** A reply that is the same every time: built once, frozen. */
function fixedReply(status: number, body: string): ReceiverResponse {
  return Object.freeze({ status, headers: JSON_HEADERS, body });
}
const CHALLENGE = 'Bearer realm="reportkit"';
const CHALLENGE_INVALID = 'Bearer realm="reportkit", error="invalid_token"';
// Headers an error reply carries besides content-type (a challenge, an Allow list).
const replyHeaders = new WeakMap<ReportkitError, Readonly<Record<string, string>>>();

export function unauthorized(result: Exclude<BearerResult, "ok">, header: string): ReportkitError {
  const where =
    header === "authorization" ? "an Authorization: Bearer <token> header" : `the ${header} header`;
  const error = new ReportkitError(
    "unauthorized",
    result === "missing"
      ? `Missing credentials: send the webhook's token in ${where}.`
      : `The token in ${where} is not one this receiver accepts.`,
  );
  const challenge = result === "missing" ? CHALLENGE : CHALLENGE_INVALID;
  replyHeaders.set(error, { ...JSON_HEADERS, "www-authenticate": challenge });
  return error;
}

export function methodNotAllowed(method: string, allowed: string): ReportkitError {
  const error = new ReportkitError(
    "method_not_allowed",
    `Method ${method.slice(0, 20)} is not allowed here; the provider pushes reports with ${allowed}.`,
  );
  replyHeaders.set(error, { ...JSON_HEADERS, allow: allowed });
  return error;
}

/**
 * A "not now" reply (503, or 409 for a report whose first attempt still runs): the provider
 * retries it later, and a sender that reads Retry-After knows when.
 */
export function retryLater(
  code:
    | "no_handler"
    | "in_progress"
    | "handler_timeout"
    | "dedupe_unavailable"
    | "queue_unavailable",
  message: string,
  retryAfterSeconds: number,
  cause?: unknown,
): ReportkitError {
  const error = new ReportkitError(code, message, cause === undefined ? undefined : { cause });
  replyHeaders.set(error, { ...JSON_HEADERS, "retry-after": String(retryAfterSeconds) });
  return error;
}

export function refusal(code: RefusalCode, limit: number): ReportkitError {
  if (code === "payload_too_large") return tooLarge(limit);
  if (code === "invalid_json") {
    return new ReportkitError(
      "invalid_json",
      "The body is not valid JSON. Send the report as a JSON object.",
    );
  }
  return readFailed(undefined);
}

export function asReportkitError(error: unknown): ReportkitError {
  if (error instanceof ReportkitError) return error;
  return new ReportkitError(
    "internal_error",
    "The receiver failed unexpectedly; the provider will retry this report.",
    {
      cause: error,
    },
  );
}

export function errorResponse(error: ReportkitError): ReceiverResponse {
  const body = JSON.stringify({ ok: false, error: { code: error.code, message: error.message } });
  return { status: error.status, headers: replyHeaders.get(error) ?? JSON_HEADERS, body, error };
}

export function tooLarge(limit: number): ReportkitError {
  return new ReportkitError(
    "payload_too_large",
    `The body is larger than the receiver's limit of ${limit} bytes. Raise maxBodyBytes if reports this large are expected.`,
  );
}

export function readFailed(cause: unknown): ReportkitError {
  return new ReportkitError(
    "body_read_failed",
    "The request body could not be read to the end (the connection failed or was aborted).",
    cause === undefined ? undefined : { cause },
  );
}
