/**
 * The base of every error the client throws. Messages never contain the access token: it is
 * only ever placed in the Authorization header.
 */
export class ClientError extends Error {
  override name = "ClientError";
  /** "GET developer/webhooks" and the like: the call that failed. */
  readonly request: string;

  constructor(request: string, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.request = request;
  }
}

/**
 * The API said the call failed: a non-2xx HTTP status, or a 2xx whose response envelope says
 * so (`code` outside 200-299, or `status` other than "OK"/"success").
 */
export class ApiError extends ClientError {
  override name = "ApiError";
  /** The HTTP status code (200 when only the envelope said the call failed). */
  readonly status: number;
  /**
   * The envelope's `code` when the body has one (a number when it is one, also when sent as a
   * digit string), else the HTTP status. Check this one for "not found" and the like.
   */
  readonly code: number | string;
  /**
   * The body as parsed JSON, or its text when it is not JSON (undefined when empty), with the
   * token replaced by "[token]" wherever the server echoed it.
   */
  readonly body: unknown;
  /** Per-field messages of a validation error (Laravel's `errors`), when the body has them. */
  readonly errors: Readonly<Record<string, readonly string[]>> | undefined;
  /** Seconds the server asked to wait (Retry-After), when it said so. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    request: string,
    init: {
      status: number;
      code: number | string;
      message: string;
      body: unknown;
      errors?: Record<string, readonly string[]>;
      retryAfterSeconds?: number;
    },
  ) {
    super(request, init.message);
    this.status = init.status;
    this.code = init.code;
    this.body = init.body;
    this.errors = init.errors;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/** A 2xx response whose body is not what the API documents; `issues` name the fields. */
export class InvalidResponseError extends ClientError {
  override name = "InvalidResponseError";
  readonly status: number;
  readonly body: unknown;
  /** "data[0].status: expected 0 or 1" and the like. */
  readonly issues: readonly string[];

  constructor(request: string, init: { status: number; body: unknown; issues: readonly string[] }) {
    const shown = init.issues.slice(0, 3).join("; ");
    const more = init.issues.length > 3 ? ` (and ${init.issues.length - 3} more)` : "";
    super(request, `${request}: unexpected response from the API: ${shown}${more}.`);
    this.status = init.status;
    this.body = init.body;
    this.issues = init.issues;
  }
}

/** No response at all: the connection failed or the request timed out (after any retries). */
export class RequestFailedError extends ClientError {
  override name = "RequestFailedError";
  /** True when the request was abandoned after `timeoutMs`. */
  readonly timedOut: boolean;
  readonly attempts: number;

  constructor(
    request: string,
    init: { reason: string; timedOut: boolean; attempts: number; cause?: unknown },
  ) {
    const tries = init.attempts > 1 ? ` (after ${init.attempts} attempts)` : "";
    super(request, `${request} failed: ${init.reason}${tries}.`, { cause: init.cause });
    this.timedOut = init.timedOut;
    this.attempts = init.attempts;
  }
}

/**
 * A 2xx response was larger than `maxResponseBytes` and was not read (a misrouted download, a
 * server gone wrong). Not retried. (An oversized error response is an ApiError whose body was
 * not read.)
 */
export class ResponseTooLargeError extends ClientError {
  override name = "ResponseTooLargeError";
  /** The HTTP status of the response. */
  readonly status: number;
  /** The `maxResponseBytes` in force. */
  readonly limitBytes: number;
  /** The Content-Length the server declared, when it declared one. */
  readonly declaredBytes: number | undefined;

  constructor(
    request: string,
    init: { status: number; limitBytes: number; declaredBytes: number | undefined },
  ) {
    const declared =
      init.declaredBytes === undefined ? "" : ` (it declared ${init.declaredBytes} bytes)`;
    super(
      request,
      `${request}: the response (HTTP ${init.status}) is larger than maxResponseBytes, ${init.limitBytes} bytes${declared}; it was not read. Raise maxResponseBytes in createClient if the API really sends responses this large.`,
    );
    this.status = init.status;
    this.limitBytes = init.limitBytes;
    this.declaredBytes = init.declaredBytes;
  }
}

/** Why a recording could not be found or downloaded: `RecordingError.reason`. */
export type RecordingErrorReason =
  /** The report carries no `recordingUrl` (the call was not recorded). */
  | "no-recording-url"
  /** Not an https URL (http only with `allowHttp`), or not a URL at all. */
  | "insecure-url"
  /** The URL has expired and no `client` was given to ask the Recordings API for a fresh one. */
  | "expired"
  /** The Recordings API lists no recording of this call (or the call has no time to search by). */
  | "not-found"
  /** The Recordings API lists several recordings that fit this call equally well. */
  | "ambiguous"
  /** Larger than `maxBytes`: stopped, the sink aborted. */
  | "too-large"
  /** A redirect to another origin (or too many redirects): not followed. */
  | "redirect-refused"
  /** The recording host answered an error status (`status`). */
  | "http-status"
  /** Not done within `timeoutMs`: stopped, the sink aborted. */
  | "timed-out"
  /** The recording host could not be reached. */
  | "network"
  /** The sink failed (its error is the `cause`). */
  | "sink";

/**
 * A call recording could not be found or downloaded; `reason` says why, and the message what
 * to do. Messages name the recording host, never the URL: a presigned URL is a credential.
 */
export class RecordingError extends ClientError {
  override name = "RecordingError";
  readonly reason: RecordingErrorReason;
  /** The recording host's HTTP status, for "http-status" (and an expiry it answered). */
  readonly status: number | undefined;

  constructor(
    reason: RecordingErrorReason,
    message: string,
    options: { status?: number; cause?: unknown; request?: string } = {},
  ) {
    super(options.request ?? "download recording", message, { cause: options.cause });
    this.reason = reason;
    this.status = options.status;
  }
}
