import { hideStack, restoreStack } from "./stackless.js";

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
  request_timeout: 408,
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
  shutting_down: 503,
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
    const status = ERROR_STATUS[code];
    // A refusal of the sender's request (4xx) is built without a stack trace: its frames are
    // reportkit's own and tell a user nothing, and capturing them was most of the cost of a
    // refusal, so a flood of bad requests would burn CPU. `stack` is then "ReportkitError:
    // <message>". Failures (5xx) keep theirs, and their cause's.
    const limit = status < 500 ? hideStack() : undefined;
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    restoreStack(limit);
    this.code = code;
    this.status = status;
    this.field = options?.field;
  }
}

/** The error of a failed `parseReport`. */
export interface ReportError extends ReportkitError {
  readonly code: ReportErrorCode;
}
