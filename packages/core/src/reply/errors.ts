// ReportkitError and the one function per reason that builds it: its code, status and headers
// from the error table, its message written once.
import { hideStack, restoreStack } from "../base/stackless.js";
import { type ErrorCode, type ReplyDetail, replyHeaders, ruleOf } from "./error-table.js";

export { ERROR_STATUS, type ErrorCode } from "./error-table.js";

/** The two codes `parseReport` can return. */
export type ReportErrorCode = "unrecognized_report" | "invalid_report";

interface ErrorOptions extends ReplyDetail {
  cause?: unknown;
  field?: string;
  verification?: boolean;
}

/**
 * A refused request or a failed handler. `message` is safe to show the sender: never a secret,
 * a token, or a handler's own error (that is in `cause`, for `onError` only).
 */
export class ReportkitError extends Error {
  override readonly name = "ReportkitError";
  readonly code: ErrorCode;
  readonly status: number;
  /** The wire field that was wrong, for `invalid_report`. */
  readonly field: string | undefined;
  /** Whether it refuses a verification handshake (counted as one, never as a report). */
  readonly verification: boolean;
  /** The reply's headers, as the code's row in the error table says. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    const { status } = ruleOf(code);
    // A refusal (4xx) is built without a stack trace (base/stackless.ts): its frames tell a user
    // nothing. Failures (5xx) keep theirs, and their cause's.
    const limit = status < 500 ? hideStack() : undefined;
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    restoreStack(limit);
    this.code = code;
    this.status = status;
    this.field = options?.field;
    this.verification = options?.verification === true;
    this.headers = replyHeaders(code, options);
  }
}

/** The error of a failed `parseReport`. */
export interface ReportError extends ReportkitError {
  readonly code: ReportErrorCode;
}

/** The factory of a code whose message is always the same, its cause (if any) kept. */
function fixed(code: ErrorCode, message: string): (cause?: unknown) => ReportkitError {
  return (cause) => new ReportkitError(code, message, { cause });
}

// ---- The request, before its body --------------------------------------------------------

/** "missing": no credential; "not_bearer": another scheme; "invalid": matched no secret. */
export const unauthorized = (
  problem: "missing" | "not_bearer" | "invalid",
  where: string,
): ReportkitError =>
  new ReportkitError(
    "unauthorized",
    problem === "missing"
      ? `Missing credentials: send the webhook's secret in ${where}.`
      : problem === "not_bearer"
        ? `The Authorization header is not a Bearer credential: send the webhook's secret as ${where}.`
        : `The secret in ${where} is not one this receiver accepts.`,
    // A credential of another scheme is no Bearer token at all: no error code (RFC 6750, 3.1).
    { invalidToken: problem === "invalid" },
  );

/** The 401 of a verification whose validation key is not the receiver's token. */
export const wrongValidationKey = (): ReportkitError =>
  new ReportkitError(
    "unauthorized",
    "The verification request's validation key (its `token` query parameter or `validation_key`) is not this receiver's `verification.token`.",
    { invalidToken: true, verification: true },
  );

export const methodNotAllowed = (method: string, allowed: string): ReportkitError =>
  new ReportkitError(
    "method_not_allowed",
    `Method ${method.slice(0, 20)} is not allowed here; the provider pushes reports with ${allowed}.`,
    { allow: allowed },
  );

export const unsupportedMediaType = (contentType: string): ReportkitError =>
  new ReportkitError(
    "unsupported_media_type",
    `Content-Type "${contentType.slice(0, 100)}" cannot carry a report. Send application/json, application/x-www-form-urlencoded or multipart/form-data.`,
  );

export function secretCheckFailed(cause: unknown): ReportkitError {
  if (cause instanceof ReportkitError) return cause;
  return new ReportkitError(
    "secret_check_failed",
    "The secret verifier failed; the provider will retry this report.",
    { cause },
  );
}

/** No secret to check requests against, where the secret is read per request. */
export const secretMissing = (envName: string, whereToSet: string): ReportkitError =>
  new ReportkitError(
    "secret_check_failed",
    `This receiver has no secret to check the request against: ${envName} is neither in its options nor ${whereToSet}, or pass \`secret\`. The provider will retry this report.`,
  );

export const shuttingDown = fixed(
  "shutting_down",
  "The receiver is shutting down and takes no new reports; the provider will retry this report.",
);

// ---- The body ----------------------------------------------------------------------------

/** The rest of an oversized body is not read: the reply closes the connection. */
export const tooLarge = (limit: number): ReportkitError =>
  new ReportkitError(
    "payload_too_large",
    `The body is larger than the receiver's limit of ${limit} bytes. Raise maxBodyBytes if reports this large are expected.`,
  );

/** The body did not arrive within `bodyTimeoutMs`: 408, and the connection is closed. */
export const bodyTimedOut = (timeoutMs: number): ReportkitError =>
  new ReportkitError(
    "request_timeout",
    `The request body did not arrive within ${timeoutMs} ms (bodyTimeoutMs); send it with the request.`,
  );

export const readFailed = fixed(
  "body_read_failed",
  "The request body could not be read to the end (the connection failed or was aborted).",
);

/** `detail`: what is wrong with the text, without quoting it. */
export const invalidJson = (detail = "The body is not valid JSON."): ReportkitError =>
  new ReportkitError("invalid_json", `${detail} Send the report as a JSON object.`);

// The platform's own parser's message differs by runtime (undici, workerd): the reply says one.
export const invalidForm = fixed(
  "invalid_form",
  "The multipart/form-data body could not be read: its parts do not follow its boundary parameter (check the boundary and the parts' CRLF line breaks).",
);

// ---- The report --------------------------------------------------------------------------

export const unrecognizedReport = (message: string): ReportError =>
  new ReportkitError("unrecognized_report", message) as ReportError;

/** A report without what identifies it, or a composed key missing: `field` names it. */
export const invalidReport = (field: string, message: string): ReportError =>
  new ReportkitError("invalid_report", message, { field }) as ReportError;

// ---- Processing --------------------------------------------------------------------------

export const noHandler = fixed(
  "no_handler",
  "No report handler is attached yet (the app may still be starting); the provider will retry this report. Attach one with onDelivery(fn), onCall(fn), onUnsubscribe(fn) or onEvent(fn).",
);

export const inProgress = fixed(
  "in_progress",
  "This report is being processed by an earlier attempt; retry later to learn its outcome.",
);

export const handlerFailed = fixed(
  "handler_failed",
  "The report handler failed; the provider will retry this report.",
);

/** A handler's RetryLater: its reason is the handler's own, kept for onError and the log only. */
export function parked(cause: { message: string; afterMs?: number | undefined }): ReportkitError {
  const seconds = cause.afterMs === undefined ? undefined : Math.ceil(cause.afterMs / 1000);
  return new ReportkitError(
    "parked",
    "The report handler asked for this report to be retried later; the provider will retry it.",
    { cause, retryAfterSeconds: seconds === undefined ? undefined : Math.max(1, seconds) },
  );
}

export const handlerTimeout = fixed(
  "handler_timeout",
  "The report handler did not finish in time; it keeps running, and a retry of this report gets its outcome.",
);

export const dedupeUnavailable = fixed(
  "dedupe_unavailable",
  "The dedupe store is unreachable, so the report was not processed; the provider will retry it.",
);

/** Logged, not sent: the handler succeeded and was answered 200. */
export const completeFailed = fixed(
  "dedupe_unavailable",
  "The report was processed (200), but the dedupe store could not record it: a retry may run the handler again.",
);

/** The report's handler succeeded but its transaction did not commit: nothing of it was kept. */
export const notRecorded = fixed(
  "dedupe_unavailable",
  "The report's transaction could not be committed, so nothing of it was kept; the provider will retry it.",
);

export const queueUnavailable = fixed(
  "queue_unavailable",
  "The report queue could not store the report (unreachable, or no answer within deadlineMs); the provider will retry it.",
);

const internalError = fixed(
  "internal_error",
  "The receiver failed unexpectedly; the provider will retry this report.",
);

/** Anything thrown that is not a ReportkitError: a bug, or a function of the app's that threw. */
export const asReportkitError = (error: unknown): ReportkitError =>
  error instanceof ReportkitError ? error : internalError(error);

/** Logged, not sent: the reply went out without the journal's copy of the report. */
export const journalNotKept = fixed(
  "internal_error",
  "The failure journal could not keep this report (the reply was sent without it).",
);
