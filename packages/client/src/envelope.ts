import { isRecord } from "@reportkit/wire/internal";

/** What makes a 2xx response's envelope ({ status, code, message, data }) say "failed". */
export interface EnvelopeFailure {
  /**
   * The envelope's `code` as a number, when it has a numeric one; else its `status` when that is
   * a number (the call-status and status-summary envelopes are `{ status: 200, message, data }`).
   */
  code: number | undefined;
  /** The envelope's `status` as sent ("Error", false, ...), when it has one. */
  status: string | boolean | undefined;
}

// provider-interface.md 2.2: "status: text status, OK on success". "success" is the other
// spelling Laravel backends use; letter case varies.
const OK_STATUSES = new Set(["ok", "success"]);

/**
 * Reads the response envelope (provider-interface.md 2.2) of a body the server sent with a
 * 2xx HTTP status: a failure when `code` is a number (or digit string) outside 200-299, or
 * `status` is a string other than "OK"/"success" (any case) or `false`. The call-status and
 * status-summary APIs send `status` as the number 200 and no `code`: a numeric `status` is read
 * as the code. Absent or other-typed fields say nothing, so a body without an envelope is not a
 * failure.
 */
export function envelopeFailure(body: unknown): EnvelopeFailure | undefined {
  if (!isRecord(body)) return undefined;
  const status = body.status;
  const code =
    numericCode(body.code) ??
    (typeof status === "number" && Number.isSafeInteger(status) ? status : undefined);
  const codeFails = code !== undefined && (code < 200 || code > 299);
  const statusFails =
    status === false ||
    (typeof status === "string" && !OK_STATUSES.has(status.trim().toLowerCase()));
  if (!codeFails && !statusFails) return undefined;
  return {
    code,
    status: typeof status === "string" || typeof status === "boolean" ? status : undefined,
  };
}

/** A `code` sent as a whole number or a digit string, as a number. */
export function numericCode(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  if (typeof value === "string" && /^\d{1,9}$/.test(value.trim())) return Number(value);
  return undefined;
}
