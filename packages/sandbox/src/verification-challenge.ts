import { randomBytes } from "node:crypto";
import { maskText } from "./mask.js";
import { sendOnce } from "./send-once.js";

/**
 * What came of a verification challenge the sandbox sent a webhook. The provider's steps are
 * not published (provider-interface.md 5); the sandbox sends the form reportkit's receiver
 * answers by default: GET <uri>?challenge=<random>&token=<the webhook's token>, passed when
 * the reply is 200 with the challenge as its body.
 */
export interface ChallengeOutcome {
  /** False when there was nothing to send (no token, or a composed webhook). */
  sent: boolean;
  passed: boolean;
  /** The URL asked, the token masked; null when not sent. */
  url: string | null;
  statusCode: number | null;
  /** Why it did not pass, in a sentence; null when it passed. */
  reason: string | null;
  at: Date;
}

const REPLY_SHOWN = 200;

/**
 * Sends the challenge to a standard webhook's URL with its bearer token, and says what came of
 * it. Never throws.
 */
export async function sendChallenge(
  uri: string,
  bearer: { token: string } | null,
  timeoutMs: number,
): Promise<ChallengeOutcome> {
  const at = new Date();
  if (bearer === null) {
    return {
      sent: false,
      passed: false,
      url: null,
      statusCode: null,
      reason:
        "not sent: the webhook has no token (give one with --token, or run the sandbox with REPORTKIT_TOKEN set)",
      at,
    };
  }
  const challenge = randomBytes(12).toString("hex");
  const url = new URL(uri);
  url.searchParams.append("challenge", challenge);
  url.searchParams.append("token", bearer.token);
  const shownUrl = maskText(url.href, [bearer.token, encodeURIComponent(bearer.token)]);
  const result = await sendOnce(
    { method: "GET", url: url.href, headers: { accept: "text/plain, */*" } },
    timeoutMs,
  );
  const { statusCode } = result;
  const reply =
    result.body === null
      ? ""
      : maskText(result.body, [bearer.token]).replace(/\s+/g, " ").slice(0, REPLY_SHOWN);
  let reason: string | null = null;
  if (result.ok === false && statusCode === null) reason = `no answer: ${result.error ?? "failed"}`;
  else if (statusCode !== 200) {
    reason = `answered ${statusCode}${statusCode === 401 ? " (the receiver's token is not this webhook's)" : statusCode === 404 || statusCode === 405 ? " (no challenge responder on that path and method)" : ""}${reply === "" ? "" : `: ${reply}`}`;
  } else if ((result.body ?? "") !== challenge) {
    reason = `answered 200 but not with the challenge${reply === "" ? "" : ` (got: ${reply})`}`;
  }
  return { sent: true, passed: reason === null, url: shownUrl, statusCode, reason, at };
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
