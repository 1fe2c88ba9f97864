import { randomBytes } from "node:crypto";
import { isRecord } from "@reportkit/wire/internal";
import { maskText, maskUrl } from "./mask.js";
import { documentedJson, type PushRequest } from "./push-request.js";
import type { PayloadStyle } from "./reports.js";
import { sendOnce } from "./send-once.js";

/**
 * What came of a verification request the sandbox sent a webhook. The provider's page
 * (field-notes.md, "The webhook's two credentials and the verification handshake"): a POST to
 * `<uri>?token=<the webhook's token>` with `Authorization: Bearer <its secret>` and the JSON body
 * `{"validation_key": "<token>", "challenge": "<random text>"}`; the webhook is verified when the
 * answer is 200 with a JSON object holding the same challenge.
 */
export interface ChallengeOutcome {
  /** False when there was nothing to send (no token, or a composed webhook). */
  sent: boolean;
  /** Whether the webhook is verified: 200 with `{"challenge": <the one sent>}`. */
  passed: boolean;
  /** The URL asked, the token masked; null when not sent. */
  url: string | null;
  statusCode: number | null;
  /** Why it did not pass, in a sentence; null when it passed. */
  reason: string | null;
  at: Date;
}

/** The credentials a verification request carries: the token it verifies, the bearer secret. */
export interface VerificationCredentials {
  /** The webhook's token (the validation key); null: nothing to verify with. */
  token: string | null;
  /** The secret sent as `Authorization: Bearer`, as with every push; null: no Authorization. */
  bearer: string | null;
}

const REPLY_SHOWN = 200;

/**
 * The verification request as the provider's page shows it: POST `<uri>?token=<token>` (the
 * webhook's own query kept as written), `Authorization: Bearer <secret>` when there is one,
 * `Content-Type: application/json`, and `validation_key` then `challenge` in the body. With
 * `payloads: "documented"` the body is written like the page's sample (one key a line, a
 * trailing comma); with "complete", strict JSON.
 *
 * @example
 * verificationRequest("http://127.0.0.1:3000/webhooks", { token: "9012XX", bearer: "1233XXX" }, "a234qwe", "complete");
 * // { method: "POST", url: "http://127.0.0.1:3000/webhooks?token=9012XX",
 * //   headers: { "content-type": "application/json", authorization: "Bearer 1233XXX" },
 * //   body: '{"validation_key":"9012XX","challenge":"a234qwe"}' }
 */
export function verificationRequest(
  uri: string,
  credentials: { token: string; bearer: string | null },
  challenge: string,
  payloads: PayloadStyle,
): PushRequest {
  const hash = uri.indexOf("#");
  const base = hash === -1 ? uri : uri.slice(0, hash);
  const url = `${base}${base.includes("?") ? "&" : "?"}token=${encodeURIComponent(credentials.token)}`;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (credentials.bearer !== null) headers.authorization = `Bearer ${credentials.bearer}`;
  const body = { validation_key: credentials.token, challenge };
  return {
    method: "POST",
    url,
    headers,
    body: payloads === "documented" ? documentedJson(body) : JSON.stringify(body),
  };
}

/**
 * Sends a standard webhook its verification request and says what came of it: passed only on a
 * 200 whose JSON holds the same challenge. Never throws; the outcome shows no credential.
 */
export async function sendVerification(
  uri: string,
  credentials: VerificationCredentials,
  options: { timeoutMs: number; payloads: PayloadStyle; signal?: AbortSignal },
): Promise<ChallengeOutcome> {
  const at = new Date();
  const { token, bearer } = credentials;
  if (token === null) {
    return {
      sent: false,
      passed: false,
      url: null,
      statusCode: null,
      reason:
        "the webhook has no token, the validation key the verification carries (give one with --token, or `token` on create or edit)",
      at,
    };
  }
  const challenge = randomBytes(12).toString("hex");
  const request = verificationRequest(uri, { token, bearer }, challenge, options.payloads);
  const hidden = [token, encodeURIComponent(token), ...(bearer === null ? [] : [bearer])];
  const shownUrl = maskUrl(request.url, hidden);
  const result = await sendOnce(request, options.timeoutMs, options.signal);
  const { statusCode } = result;
  const reply =
    result.body === null
      ? ""
      : maskText(result.body, hidden).replace(/\s+/g, " ").trim().slice(0, REPLY_SHOWN);
  const reason = refusal(
    statusCode,
    result.ok ? null : result.error,
    result.body,
    challenge,
    reply,
  );
  return { sent: true, passed: reason === null, url: shownUrl, statusCode, reason, at };
}

/** Why the answer does not verify the webhook, in a sentence; null when it does. */
function refusal(
  statusCode: number | null,
  error: string | null,
  body: string | null,
  challenge: string,
  reply: string,
): string | null {
  const quoted = reply === "" ? "" : `: ${reply}`;
  if (statusCode === null) return `no answer: ${error ?? "failed"}`;
  if (statusCode !== 200) return `answered ${statusCode}${HINTS[statusCode] ?? ""}${quoted}`;
  if (echoed(body) === challenge) return null;
  return `answered 200 but not with {"challenge": "<the challenge sent>"} in JSON${reply === "" ? " (an empty body)" : ` (got: ${reply})`}`;
}

const HINTS: Record<number, string> = {
  400: " (the receiver did not take it for the verification request: does it answer the provider's handshake?)",
  401: " (the receiver refused the validation key: its REPORTKIT_VERIFICATION_TOKEN is not this webhook's token, or, without one, its REPORTKIT_SECRET is not the bearer sent, the webhook's secret)",
  404: " (nothing answers a POST on that path)",
  405: " (nothing answers a POST on that path)",
};

/** The `challenge` of a JSON object body, else undefined. */
function echoed(body: string | null): unknown {
  if (body === null) return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    return isRecord(parsed) ? parsed.challenge : undefined;
  } catch {
    return undefined;
  }
}

/** A challenge's outcome on the wire, snake_case like the rest of the API. */
export function challengeJson(outcome: ChallengeOutcome) {
  return {
    sent: outcome.sent,
    passed: outcome.passed,
    url: outcome.url,
    status_code: outcome.statusCode,
    reason: outcome.reason,
    at: outcome.at.toISOString(),
  };
}
