import http from "node:http";
import https from "node:https";
import type { PushRequest } from "./push-request.js";

export type SendResult =
  | { ok: true; statusCode: number; body: string | null }
  | { ok: false; statusCode: number | null; error: string | null; body: string | null };

/** How much of the receiver's reply is kept for the push log (the rest is read and dropped). */
export const MAX_REPLY_BYTES = 16_384;

const USER_AGENT = "reportkit-sandbox/0.1 (provider simulator)";

/**
 * The headers an attempt sends, as sent (Host aside): the request's own plus the transport's
 * User-Agent, Connection and Content-Length, and the Basic Authorization that Node's
 * http.request makes of a URL's `user:password@` when the request sets none itself.
 */
export function sentHeaders(request: PushRequest): Record<string, string> {
  const headers: Record<string, string> = {
    "user-agent": USER_AGENT,
    connection: "close",
    ...request.headers,
  };
  const basic = basicFromUrl(request.url);
  if (basic !== undefined && headers.authorization === undefined) headers.authorization = basic;
  if (request.body !== undefined) {
    const length =
      typeof request.body === "string" ? Buffer.byteLength(request.body) : request.body.byteLength;
    headers["content-length"] = String(length);
  }
  return headers;
}

/** `Basic <base64(user:password)>` as Node sends it for a URL with userinfo, else undefined. */
function basicFromUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.username === "" && url.password === "") return undefined;
  let user: string;
  let password: string;
  try {
    user = decodeURIComponent(url.username);
    password = decodeURIComponent(url.password);
  } catch {
    return undefined; // Node would fail the request itself: nothing is sent
  }
  return `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
}

/**
 * One attempt, as the provider makes it: a fresh connection, the response status awaited for
 * at most `timeoutMs`. Only 200 and 202 are success. Never throws.
 */
export function sendOnce(
  request: PushRequest,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<SendResult> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      resolve({ ok: false, statusCode: null, error: "invalid URL", body: null });
      return;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      resolve({
        ok: false,
        statusCode: null,
        error: `unsupported scheme ${url.protocol}`,
        body: null,
      });
      return;
    }
    const body =
      request.body === undefined
        ? undefined
        : typeof request.body === "string"
          ? Buffer.from(request.body)
          : request.body;
    const headers = sentHeaders(request);

    // Set once the status line arrives; the reply body is then read until its end (or the timeout).
    let answered: (() => void) | undefined;
    const timer = setTimeout(() => {
      if (answered !== undefined) answered();
      else {
        finish({
          ok: false,
          statusCode: null,
          error: `timeout: no response within ${timeoutMs} ms`,
          body: null,
        });
      }
      outgoing.destroy();
    }, timeoutMs);

    const send = url.protocol === "https:" ? https.request : http.request;
    let outgoing: http.ClientRequest;
    try {
      outgoing = send(url, { method: request.method, headers, agent: false, signal });
    } catch (error) {
      finish({ ok: false, statusCode: null, error: describe(error), body: null });
      return;
    }
    outgoing.on("response", (response) => {
      const statusCode = response.statusCode ?? 0;
      // The status decides the outcome; the body is kept (bounded) so the log can show the reply.
      const chunks: Buffer[] = [];
      let kept = 0;
      answered = () => {
        const body = chunks.length === 0 ? null : Buffer.concat(chunks).toString("utf8");
        finish(
          statusCode === 200 || statusCode === 202
            ? { ok: true, statusCode, body }
            : { ok: false, statusCode, error: null, body },
        );
      };
      response.on("data", (chunk: Buffer) => {
        if (kept >= MAX_REPLY_BYTES) return;
        const part = chunk.subarray(0, MAX_REPLY_BYTES - kept);
        chunks.push(part);
        kept += part.length;
      });
      response.on("end", () => answered?.());
      response.on("close", () => answered?.());
      response.on("error", () => answered?.());
    });
    outgoing.on("error", (error) => {
      if (answered !== undefined) answered();
      else finish({ ok: false, statusCode: null, error: describe(error), body: null });
    });
    outgoing.end(body);
  });
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by the receiver",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EPIPE: "connection closed by the receiver",
};

function describe(error: unknown): string {
  if (error instanceof Error && error.name === "AbortError") return "cancelled: the sender closed";
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string") {
    const reason = REASONS[code];
    if (reason !== undefined) return `${reason} (${code})`;
    if (code.startsWith("ERR_TLS") || code.includes("CERT")) return `TLS error (${code})`;
    return code;
  }
  return error instanceof Error ? error.message : String(error);
}
