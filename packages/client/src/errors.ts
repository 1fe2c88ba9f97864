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

/** The API answered with a non-2xx status. */
export class ApiError extends ClientError {
  override name = "ApiError";
  /** The HTTP status code. */
  readonly status: number;
  /** The envelope's `code` when the body has one, else the HTTP status. */
  readonly code: number | string;
  /** The body as parsed JSON, or its text when it is not JSON (undefined when empty). */
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
