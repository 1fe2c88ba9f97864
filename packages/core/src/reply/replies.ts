import type { ReceiverResponse, RefusalCode } from "../receiver/types.js";
import type { BearerResult } from "../request/check-bearer.js";
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
const CLOSING_HEADERS = Object.freeze({ ...JSON_HEADERS, connection: "close" });
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
      : result === "not_bearer"
        ? `The Authorization header is not a Bearer credential: send the webhook's token as ${where}.`
        : `The token in ${where} is not one this receiver accepts.`,
  );
  // A credential of another scheme is no Bearer token at all: no error code (RFC 6750, 3.1).
  const challenge = result === "invalid" ? CHALLENGE_INVALID : CHALLENGE;
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
    | "queue_unavailable"
    | "shutting_down",
  message: string,
  retryAfterSeconds: number,
  cause?: unknown,
): ReportkitError {
  const error = new ReportkitError(code, message, cause === undefined ? undefined : { cause });
  replyHeaders.set(error, { ...JSON_HEADERS, "retry-after": String(retryAfterSeconds) });
  return error;
}

export function refusal(code: RefusalCode, limit: number, timeoutMs: number): ReportkitError {
  if (code === "payload_too_large") return tooLarge(limit);
  if (code === "request_timeout") return bodyTimedOut(timeoutMs);
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

/**
 * The rest of an oversized body is not read: the reply closes the connection (a keep-alive
 * client opens a new one) rather than let the server read whatever the client sends on.
 */
export function tooLarge(limit: number): ReportkitError {
  const error = new ReportkitError(
    "payload_too_large",
    `The body is larger than the receiver's limit of ${limit} bytes. Raise maxBodyBytes if reports this large are expected.`,
  );
  replyHeaders.set(error, CLOSING_HEADERS);
  return error;
}

/** The body did not arrive within `bodyTimeoutMs`: 408, and the connection is closed. */
export function bodyTimedOut(timeoutMs: number): ReportkitError {
  const error = new ReportkitError(
    "request_timeout",
    `The request body did not arrive within ${timeoutMs} ms (bodyTimeoutMs); send it with the request.`,
  );
  replyHeaders.set(error, CLOSING_HEADERS);
  return error;
}

/**
 * The reply with `Connection: close`: the server closes the connection once it is sent, so
 * what is left of a refused body is not read. Adapters send it as it is; Node's server honours it.
 */
export function closingConnection(response: ReceiverResponse): ReceiverResponse {
  if (response.headers.connection === "close") return response;
  return { ...response, headers: { ...response.headers, connection: "close" } };
}

export function readFailed(cause: unknown): ReportkitError {
  return new ReportkitError(
    "body_read_failed",
    "The request body could not be read to the end (the connection failed or was aborted).",
    cause === undefined ? undefined : { cause },
  );
}

export function unsupportedMediaType(contentType: string): ReportkitError {
  return new ReportkitError(
    "unsupported_media_type",
    `Content-Type "${contentType.slice(0, 100)}" cannot carry a report. Send application/json, application/x-www-form-urlencoded or multipart/form-data.`,
  );
}

export function tokenCheckFailed(cause: unknown): ReportkitError {
  return new ReportkitError(
    "token_check_failed",
    "The token verifier failed; the provider will retry this report.",
    { cause },
  );
}

export function noHandler(): ReportkitError {
  return retryLater(
    "no_handler",
    "No report handler is attached yet (the app may still be starting); the provider will retry this report. Attach one with onDelivery(fn) / onCall(fn).",
    5,
  );
}

export function inProgress(): ReportkitError {
  return retryLater(
    "in_progress",
    "This report is being processed by an earlier attempt; retry later to learn its outcome.",
    30,
  );
}

export function handlerFailed(cause: unknown): ReportkitError {
  return new ReportkitError(
    "handler_failed",
    "The report handler failed; the provider will retry this report.",
    { cause },
  );
}

export function handlerTimeout(): ReportkitError {
  return retryLater(
    "handler_timeout",
    "The report handler did not finish in time; it keeps running, and a retry of this report gets its outcome.",
    30,
  );
}

export function dedupeUnavailable(cause: unknown): ReportkitError {
  return retryLater(
    "dedupe_unavailable",
    "The dedupe store is unreachable, so the report was not processed; the provider will retry it.",
    30,
    cause,
  );
}

export function queueUnavailable(cause: unknown): ReportkitError {
  return retryLater(
    "queue_unavailable",
    "The report queue could not store the report (unreachable, or no answer within deadlineMs); the provider will retry it.",
    30,
    cause,
  );
}

/** Logged, not sent: the handler succeeded and was answered 200. */
export function completeFailed(cause: unknown): ReportkitError {
  return new ReportkitError(
    "dedupe_unavailable",
    "The report was processed (200), but the dedupe store could not record it: a retry may run the handler again.",
    { cause },
  );
}

export function shuttingDown(): ReportkitError {
  return retryLater(
    "shutting_down",
    "The receiver is shutting down and takes no new reports; the provider will retry this report.",
    30,
  );
}

/** The report's handler succeeded but its transaction did not commit: nothing of it was kept. */
export function notRecorded(cause: unknown): ReportkitError {
  return retryLater(
    "dedupe_unavailable",
    "The report's transaction could not be committed, so nothing of it was kept; the provider will retry it.",
    30,
    cause,
  );
}
