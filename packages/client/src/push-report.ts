import { ResponseTooLarge, readResponseText } from "./read-response.js";

/** What the receiver made of one report. */
export type PushVerdict =
  | { kind: "processed" | "duplicate" | "queued"; status: number }
  | { kind: "failed"; status: number | null; reason: string };

export interface PushInit {
  headers: Record<string, string>;
  timeoutMs: number;
  fetch: typeof globalThis.fetch;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
// A reply is read to tell a duplicate from a first time; reportkit's replies are a few bytes.
const MAX_REPLY_BYTES = 65_536;
const MAX_REASON_CHARS = 200;

/**
 * POSTs one report as the provider does (JSON, the credential header) and reads the reply:
 * 200 or 202 is a success (the provider counts no other status as one), a duplicate when the
 * body says `"duplicate": true`, queued when it says `"queued": true`. Redirects are followed
 * only within the target's origin, re-sending the same POST (a framework's 301 to the path
 * with a trailing slash must not become a GET without the report); one to another origin is
 * a failure, not followed: the request carries the webhook's secret. `timeoutMs` bounds the
 * whole request, redirects included. Never throws.
 */
export async function pushReport(target: URL, body: string, init: PushInit): Promise<PushVerdict> {
  const signal = AbortSignal.timeout(init.timeoutMs);
  let url = target;
  try {
    for (let hop = 0; ; hop++) {
      const response = await init.fetch(url, {
        method: "POST",
        headers: init.headers,
        body,
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
      const text = await replyText(response);
      if (response.status !== 200 && response.status !== 202) {
        const said = oneLine(text);
        const note = response.ok ? " (the provider counts only 200 and 202 as success)" : "";
        return failed(response.status, `HTTP ${response.status}${note}${said ? `: ${said}` : ""}`);
      }
      const reply = parse(text);
      if (reply?.duplicate === true) return { kind: "duplicate", status: response.status };
      if (reply?.queued === true) return { kind: "queued", status: response.status };
      return { kind: "processed", status: response.status };
    }
  } catch (error) {
    if (signal.aborted) return failed(null, `no answer within ${init.timeoutMs} ms`);
    return failed(null, `could not reach ${url.host} (${networkReason(error)})`);
  }
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
    return typeof value === "object" && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
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
