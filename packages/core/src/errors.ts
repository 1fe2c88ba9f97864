/**
 * Every reason reportkit refuses a request or reports a failure, with the HTTP status the
 * provider receives. The codes are stable: match on them, never on messages.
 */
export const ERROR_STATUS = {
  unauthorized: 401,
  invalid_json: 400,
  unrecognized_report: 400,
  invalid_report: 400,
  invalid_form: 400,
  body_read_failed: 400,
  method_not_allowed: 405,
  in_progress: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  handler_failed: 500,
  token_check_failed: 500,
  internal_error: 500,
  no_handler: 503,
  handler_timeout: 503,
  dedupe_unavailable: 503,
  queue_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The two codes `parseReport` can return. */
export type ReportErrorCode = "unrecognized_report" | "invalid_report";

/**
 * A refused request or a failed handler. `message` is safe to show the sender: it never
 * contains a token, a secret, an Authorization value, or the message of a handler's error
 * (that one is kept in `cause`, for `onError` only).
 */
export class ReportkitError extends Error {
  override readonly name = "ReportkitError";
  readonly code: ErrorCode;
  readonly status: number;
  /** The wire field that was wrong, for `invalid_report`. */
  readonly field: string | undefined;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; field?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.field = options?.field;
  }
}

/** The error of a failed `parseReport`. */
export interface ReportError extends ReportkitError {
  readonly code: ReportErrorCode;
}
