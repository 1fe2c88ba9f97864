// Sending one report to a receiver as the provider would, and reading what the receiver made
// of it: the one way `reconcile()` and `reportkit replay` do it, so that what counts as
// processed, which redirects are followed, how long a request may take and what a failure
// says (never the secret) are decided once.
import { isRecord } from "@reportkit/wire/internal";
import { ResponseTooLarge, readResponseText } from "./read-response.js";
import { redactor } from "./redact.js";

/** What the receiver made of one report. */
export type PushVerdict =
  | { kind: "processed" | "duplicate" | "queued"; status: number }
  | {
      kind: "failed";
      status: number | null;
      reason: string;
      /** No answer within `timeoutMs`. */
      timedOut?: true;
    };

export interface PusherOptions {
  /** The webhook's secret: sent as `Authorization: Bearer <secret>`, or as `header`'s value. */
  secret: string;
  /** Send the secret as this header's whole value instead (a custom credential header). */
  header?: string | undefined;
  /** Sent with every request besides the credential and the Content-Type (a user agent, a mark). */
  headers?: Readonly<Record<string, string>>;
  /** Bounds one report's request, redirects and the reply's body included. */
  timeoutMs: number;
  /** Default the global fetch. */
  fetch?: typeof globalThis.fetch;
}

/** One report's request: what the provider sent (or would send), to `url`. */
export interface PushRequest {
  url: URL;
  /** Default POST; GET and HEAD are sent without a body. */
  method?: string;
  contentType: string | null;
  body: string | Uint8Array<ArrayBuffer>;
}

/** Sends one report; never throws. */
export type ReportPusher = (request: PushRequest) => Promise<PushVerdict>;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
// A reply is read to tell reportkit's own from another; reportkit's replies are a few bytes.
const MAX_REPLY_BYTES = 65_536;
const MAX_REASON_CHARS = 200;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** Whether `name` can be an HTTP header's name (a token: letters, digits, `-` and a few more). */
export function isHeaderName(name: string): boolean {
  return HEADER_NAME.test(name.toLowerCase());
}

/**
 * A function that sends one report as the provider does (its method, Content-Type and body,
 * the credential header) and reads the reply. Only reportkit's own reply is a success: 200 or
 * 202 with `{"ok":true}` (processed), `{"ok":true,"duplicate":true}` or
 * `{"ok":true,"queued":true}`; any other reply (an HTML page a wrong URL answers 200 with, a 2xx
 * that is not reportkit's) is a failure with its reason. Redirects are followed only within
 * the target's origin, re-sending the same method and body (a framework's 301 to the path with
 * a trailing slash must not become a GET without the report); one to another origin is a
 * failure, and nothing is sent there: the request carries the webhook's secret. `timeoutMs`
 * bounds the whole request. Every reason has the secret redacted, also when the receiver
 * echoes it (any letter case, URL-encoded, base64), and any `Bearer <credential>` too; a reply
 * is redacted before it is cut to its first 200 characters, so no cut shows part of a secret.
 */
export function reportPusher(options: PusherOptions): ReportPusher {
  const fetch = options.fetch ?? globalThis.fetch;
  const credential: Record<string, string> =
    options.header === undefined
      ? { authorization: `Bearer ${options.secret}` }
      : { [options.header.toLowerCase()]: options.secret };
  const hide = redactor(options.secret);
  const headers = { ...options.headers, ...credential };
  return async (request) => {
    const verdict = await push(fetch, request, headers, options.timeoutMs, hide);
    // The reply was redacted before it was cut; this catches what else a reason may quote.
    return verdict.kind === "failed" ? { ...verdict, reason: hide(verdict.reason) } : verdict;
  };
}

async function push(
  fetch: typeof globalThis.fetch,
  request: PushRequest,
  credential: Record<string, string>,
  timeoutMs: number,
  hide: (text: string) => string,
): Promise<PushVerdict> {
  const method = request.method ?? "POST";
  const hasBody = method !== "GET" && method !== "HEAD";
  const headers: Record<string, string> = { ...credential };
  if (request.contentType !== null && hasBody) headers["content-type"] = request.contentType;
  const signal = AbortSignal.timeout(timeoutMs);
  const target = request.url;
  let url = target;
  try {
    for (let hop = 0; ; hop++) {
      const response = await fetch(url, {
        method,
        headers,
        ...(hasBody && { body: request.body }),
        redirect: "manual",
        signal,
      });
      if (REDIRECTS.has(response.status) || response.type === "opaqueredirect") {
        await response.body?.cancel().catch(() => {});
        const location = response.headers.get("location");
        if (location === null) {
          return failed(response.status, `redirected (${response.status}) without a Location`);
        }
        const next = new URL(location, url);
        if (next.origin !== target.origin) {
          return failed(
            response.status,
            `redirected (${response.status}) to another origin, ${next.origin}: not followed, the request carries the webhook's secret. Give --to the address the receiver really answers at`,
          );
        }
        if (hop === MAX_REDIRECTS)
          return failed(response.status, `more than ${MAX_REDIRECTS} redirects`);
        url = next;
        continue;
      }
      // Redacted whole, then cut: a cut first could leave the start of an echoed secret.
      return verdictOf(response, hide(await replyText(response)));
    }
  } catch (error) {
    if (signal.aborted) {
      return {
        kind: "failed",
        status: null,
        reason: `no answer within ${timeoutMs} ms`,
        timedOut: true,
      };
    }
    return failed(null, `could not reach ${url.host} (${networkReason(error)})`);
  }
}

/** reportkit's own replies are a success; every other reply is a failure saying what came. */
function verdictOf(response: Response, text: string): PushVerdict {
  const { status } = response;
  const said = oneLine(text);
  const quoted = said ? `: ${said}` : "";
  if (status !== 200 && status !== 202) {
    const note = response.ok ? " (the provider counts only 200 and 202 as success)" : "";
    return failed(status, `HTTP ${status}${note}${quoted}`);
  }
  const reply = parse(text);
  if (reply?.ok !== true) {
    const type = response.headers.get("content-type")?.split(";")[0]?.trim() || "no Content-Type";
    return failed(
      status,
      `HTTP ${status} but not reportkit's reply (${type}), so not counted as processed: is the URL your receiver's?${quoted}`,
    );
  }
  if (reply.duplicate === true) return { kind: "duplicate", status };
  if (reply.queued === true) return { kind: "queued", status };
  return { kind: "processed", status };
}

function failed(status: number | null, reason: string): PushVerdict {
  return { kind: "failed", status, reason };
}

async function replyText(response: Response): Promise<string> {
  try {
    return await readResponseText(response, MAX_REPLY_BYTES);
  } catch (error) {
    if (error instanceof ResponseTooLarge) return "";
    throw error;
  }
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_REASON_CHARS ? `${flat.slice(0, MAX_REASON_CHARS)}…` : flat;
}

function networkReason(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === "string" ? code : cause.message;
  }
  return error instanceof Error ? error.message : String(error);
}
