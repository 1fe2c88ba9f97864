import { isRecord } from "@reportkit/wire/internal";
import type { z } from "zod";
import { type EnvelopeFailure, envelopeFailure, numericCode } from "./envelope.js";
import {
  ApiError,
  InvalidResponseError,
  RequestFailedError,
  ResponseTooLargeError,
} from "./errors.js";
import { fetchWithinOrigin, RedirectRefused } from "./follow-redirects.js";
import { ResponseTooLarge, readResponseText } from "./read-response.js";
import { redactDeep, redactor } from "./redact.js";

/** Everything a request needs; `sleep` and `random` are replaceable so tests need no clock. */
export interface Transport {
  baseUrl: string;
  token: string;
  fetch: typeof globalThis.fetch;
  timeoutMs: number;
  /** Largest response body read, in bytes; a larger one is a ResponseTooLargeError. */
  maxResponseBytes: number;
  retries: number;
  retryBaseMs: number;
  maxRetryDelayMs: number;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

export interface RequestSpec {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: Record<string, unknown>;
}

// Statuses that say "try again later" without the request having had an effect.
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
const MAX_MESSAGE_CHARS = 300;

/**
 * Sends one API call and returns the parsed body of a 2xx response whose envelope says OK.
 * GET, PUT and DELETE are idempotent and retried on network errors, timeouts and
 * 429/502/503/504 (the HTTP status, or the envelope's code under a 2xx); POST is sent once,
 * since a retry after a lost response would create a second webhook.
 */
export async function request(t: Transport, spec: RequestSpec): Promise<unknown> {
  const url = new URL(spec.path, t.baseUrl);
  for (const [key, value] of Object.entries(spec.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  const label = `${spec.method} ${spec.path}`;
  const headers: Record<string, string> = {
    accept: "application/json",
    authorization: `Bearer ${t.token}`,
  };
  let payload: string | undefined;
  if (spec.body !== undefined) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(spec.body);
  }
  const maxAttempts = spec.method === "POST" ? 1 : t.retries + 1;

  for (let attempt = 1; ; attempt++) {
    const canRetry = attempt < maxAttempts;
    let response: Response;
    let text: string;
    // An error status says what is needed without its body: an oversized one is not read, and
    // the status is handled (and retried) as usual.
    let unread: ResponseTooLarge | undefined;
    try {
      response = await fetchWithinOrigin(t.fetch, url, {
        method: spec.method,
        headers,
        body: payload,
        signal: AbortSignal.timeout(t.timeoutMs),
      });
      try {
        text = await readResponseText(response, t.maxResponseBytes);
      } catch (error) {
        if (!(error instanceof ResponseTooLarge) || response.ok) throw error;
        unread = error;
        text = "";
      }
    } catch (cause) {
      if (cause instanceof ResponseTooLarge) {
        throw new ResponseTooLargeError(label, {
          limitBytes: cause.limit,
          declaredBytes: cause.declared,
          status: cause.status,
        });
      }
      if (cause instanceof RedirectRefused) {
        throw new RequestFailedError(label, {
          reason: cause.message,
          timedOut: false,
          attempts: attempt,
        });
      }
      if (canRetry) {
        await t.sleep(backoff(t, attempt));
        continue;
      }
      const timedOut = isTimeout(cause);
      const reason = timedOut
        ? `no response within ${t.timeoutMs} ms`
        : `could not reach ${url.host} (${networkReason(cause)})`;
      throw new RequestFailedError(label, { reason, timedOut, attempts: attempt, cause });
    }

    const body = parseBody(text);
    // HTTP 200 with { "status": "Error", "code": 404 } is a failure like a 404 (2.2).
    const envelope = response.ok ? envelopeFailure(body) : undefined;
    if (response.ok && envelope === undefined) return body;

    const verdict = envelope?.code ?? response.status;
    const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
    if (canRetry && RETRYABLE_STATUS.has(verdict)) {
      // A Retry-After beyond our cap is a "not soon": report it rather than hang the caller.
      if (retryAfterMs === undefined || retryAfterMs <= t.maxRetryDelayMs) {
        await t.sleep(retryAfterMs ?? backoff(t, attempt));
        continue;
      }
    }
    throw apiError(t, label, response, body, retryAfterMs, envelope, unread, spec.body);
  }
}

/**
 * Validates a 2xx body; a mismatch names each wrong field, and the error's `body` has the
 * token redacted.
 */
export function validate<S extends z.ZodType>(
  t: Pick<Transport, "token">,
  schema: S,
  label: string,
  served: unknown,
): z.output<S> {
  const result = schema.safeParse(served);
  if (result.success) return result.data;
  const body = redactDeep(served, redactor(t.token));
  const issues = result.error.issues.map((issue) => {
    const where = formatPath(issue.path);
    return where === "" ? issue.message : `${where}: ${issue.message}`;
  });
  throw new InvalidResponseError(label, { status: 200, body, issues });
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** Capped exponential backoff with equal jitter: between half and all of base * 2^(n-1). */
function backoff(t: Transport, attempt: number): number {
  const ceiling = Math.min(t.maxRetryDelayMs, t.retryBaseMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (t.random() * ceiling) / 2);
}

/** Retry-After in seconds or as an HTTP date, in ms from now. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

function parseBody(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
}

/** What went wrong with a connection, shortest first: the system's code (ECONNREFUSED), else the message. */
export function networkReason(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === "string" ? code : cause.message;
  }
  return error instanceof Error ? error.message : String(error);
}

function apiError(
  t: Transport,
  label: string,
  response: Response,
  served: unknown,
  retryAfterMs: number | undefined,
  envelope: EnvelopeFailure | undefined,
  unread: ResponseTooLarge | undefined,
  sent: Record<string, unknown> | undefined,
): ApiError {
  // The whole body is redacted first (any letter case, URL-encoded, base64: the forms a server
  // may echo the token in), so neither the message nor `body` nor `errors` can carry it.
  const redact = redactor([t.token, ...credentialsIn(sent)]);
  const body = redactDeep(served, redact);
  const record = isRecord(body) ? body : undefined;
  const envelopeCode = typeof record?.code === "string" ? record.code : undefined;
  const code = envelope?.code ?? numericCode(record?.code) ?? envelopeCode ?? response.status;
  const verdict = typeof code === "number" ? code : response.status;
  const errors = fieldErrors(record?.errors);
  let said: string | undefined;
  if (typeof record?.message === "string" && record.message.trim() !== "") said = record.message;
  else if (typeof record?.error === "string") said = record.error;
  else if (typeof body === "string" && !body.trimStart().startsWith("<")) said = body;
  said = said === undefined ? undefined : oneLine(said);

  const http = `${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
  let message: string;
  if (envelope === undefined) message = `${label} failed with ${http}`;
  else if (envelope.code !== undefined) {
    message = `${label} failed with ${envelope.code} (the response envelope's code; HTTP status ${http})`;
  } else {
    message = `${label} failed: the response envelope says status ${JSON.stringify(envelope.status)} (HTTP status ${http})`;
  }
  if (said !== undefined) message += `: ${said}`;
  if (verdict === 401) {
    message +=
      " Check the access token: it must be the account's current API token, sent as Bearer.";
  } else if (errors !== undefined && said === undefined) {
    message += `: ${Object.values(errors).flat().join(" ")}`;
  }
  if (unread !== undefined) {
    message += ` (its body was not read: larger than maxResponseBytes, ${unread.limit} bytes)`;
  }
  if (retryAfterMs !== undefined && RETRYABLE_STATUS.has(verdict)) {
    message += ` (the server asked to retry after ${Math.ceil(retryAfterMs / 1000)} s)`;
  }
  return new ApiError(label, {
    status: response.status,
    code,
    message: redact(message),
    body,
    errors,
    retryAfterSeconds: retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000),
  });
}

/** The webhook's token and secret a request body carries: redacted from errors like the API token. */
function credentialsIn(sent: Record<string, unknown> | undefined): string[] {
  if (sent === undefined) return [];
  return [sent.token, sent.secret].filter(
    (v): v is string => typeof v === "string" && v.length >= 4,
  );
}

function fieldErrors(value: unknown): Record<string, string[]> | undefined {
  if (!isRecord(value)) return undefined;
  const out: Record<string, string[]> = {};
  for (const [field, messages] of Object.entries(value)) {
    const list = Array.isArray(messages) ? messages : [messages];
    out[field] = list.filter((m): m is string => typeof m === "string");
  }
  return out;
}

function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > MAX_MESSAGE_CHARS ? `${flat.slice(0, MAX_MESSAGE_CHARS)}…` : flat;
}
