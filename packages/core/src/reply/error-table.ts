// Every error code's rule, in one row: its status, its reply's headers, whether the journal keeps
// it, how it is logged and counted; nothing else decides these. A new code is one row here, one
// factory in errors.ts, a row in the README's reply table and a conformance case.

export interface ErrorRule {
  /** The HTTP status: not 200 or 202, the provider's only successes, so every code retries. */
  readonly status: number;
  /** `Retry-After`, in seconds: "not now". */
  readonly retryAfterSeconds?: number;
  /** `Connection: close`: the rest of a refused body is not read. */
  readonly closesConnection?: true;
  /** `WWW-Authenticate: Bearer realm="reportkit"` (RFC 6750): every 401 carries it. */
  readonly authenticate?: true;
  /** `Allow`, with the method the receiver takes (405). */
  readonly allow?: true;
  /** Kept (authenticated) as `refused` (unusable content, or a parser bug) or `failed`. */
  readonly journal?: "refused" | "failed";
  /** Logged `each` time (the app's own failures), `per-minute` (a refusal repeats), or `once`. */
  readonly log: "each" | "per-minute" | "once";
  readonly level: "warn" | "error";
  /** How telemetry ends a report's span with this code (see `ReportOutcome`). */
  readonly outcome: "failed" | "timeout" | "in_progress" | "unavailable" | "parked";
}

const refusal = { log: "per-minute", level: "warn", outcome: "failed" } as const;
const notNow = {
  retryAfterSeconds: 30,
  log: "per-minute",
  level: "error",
  outcome: "unavailable",
} as const;
/** A failure of the app's code or of the receiver: worth a line each time, and kept. */
const failure = {
  status: 500,
  journal: "failed",
  log: "each",
  level: "error",
  outcome: "failed",
} as const;

/** The stable error codes and their rules, by status. Match on the codes, never on messages. */
export const ERROR_RULES = {
  invalid_json: { status: 400, journal: "refused", ...refusal },
  unrecognized_report: { status: 400, journal: "refused", ...refusal },
  invalid_report: { status: 400, journal: "refused", ...refusal },
  invalid_form: { status: 400, journal: "refused", ...refusal },
  body_read_failed: { status: 400, ...refusal },
  unauthorized: { status: 401, authenticate: true, ...refusal },
  method_not_allowed: { status: 405, allow: true, ...refusal },
  request_timeout: { status: 408, closesConnection: true, ...refusal },
  in_progress: { status: 409, ...notNow, level: "warn", outcome: "in_progress" },
  payload_too_large: { status: 413, closesConnection: true, ...refusal },
  unsupported_media_type: { status: 415, ...refusal },
  handler_failed: failure,
  secret_check_failed: { status: 500, log: "per-minute", level: "error", outcome: "failed" },
  internal_error: failure,
  no_handler: { status: 503, ...notNow, retryAfterSeconds: 5, log: "once", level: "warn" },
  handler_timeout: { status: 503, ...notNow, journal: "failed", log: "each", outcome: "timeout" },
  // A handler's RetryLater: kept, since the provider stops retrying after 90 minutes.
  parked: { status: 503, ...notNow, journal: "failed", level: "warn", outcome: "parked" },
  dedupe_unavailable: { status: 503, ...notNow },
  queue_unavailable: { status: 503, ...notNow },
  shutting_down: { status: 503, ...notNow, level: "warn" },
} as const satisfies Record<string, ErrorRule>;

export type ErrorCode = keyof typeof ERROR_RULES;

/** Each code's HTTP status, for matching in apps and tests. */
export const ERROR_STATUS = Object.freeze(
  Object.fromEntries(Object.entries(ERROR_RULES).map(([code, rule]) => [code, rule.status])),
) as { readonly [C in ErrorCode]: (typeof ERROR_RULES)[C]["status"] };

export function ruleOf(code: ErrorCode): ErrorRule {
  return ERROR_RULES[code];
}

/** What a reply's headers depend on besides the code. */
export interface ReplyDetail {
  /** A credential was presented and matched nothing: `error="invalid_token"` (RFC 6750, 3.1). */
  readonly invalidToken?: boolean;
  /** The method the receiver takes, for `Allow`. */
  readonly allow?: string;
  /** `Retry-After` other than the row's, in seconds (a parked report's). */
  readonly retryAfterSeconds?: number;
}

// Built once per code and detail, frozen: a flood of refusals allocates no header object. Only
// a parked report's Retry-After and a 405's method vary, so the map stays small.
const HEADERS = new Map<string, Readonly<Record<string, string>>>();

export function replyHeaders(
  code: ErrorCode,
  detail: ReplyDetail = {},
): Readonly<Record<string, string>> {
  const rule = ruleOf(code);
  const retryAfter = detail.retryAfterSeconds ?? rule.retryAfterSeconds;
  const invalidToken = rule.authenticate === true && detail.invalidToken === true;
  const allow = rule.allow === true ? (detail.allow ?? "POST") : undefined;
  const id = `${code} ${retryAfter} ${invalidToken} ${allow}`;
  let headers = HEADERS.get(id);
  if (headers === undefined) {
    const record: Record<string, string> = { "content-type": "application/json" };
    if (retryAfter !== undefined) record["retry-after"] = String(retryAfter);
    if (rule.closesConnection === true) record.connection = "close";
    if (rule.authenticate === true) {
      const error = invalidToken ? ', error="invalid_token"' : "";
      record["www-authenticate"] = `Bearer realm="reportkit"${error}`;
    }
    if (allow !== undefined) record.allow = allow;
    headers = Object.freeze(record);
    if (HEADERS.size < 64) HEADERS.set(id, headers);
  }
  return headers;
}
