import { maskUrl } from "./mask.js";
import type { PushAttempt } from "./pusher.js";
import type { VerificationSent } from "./sandbox-options.js";

/**
 * One readable line for a push attempt, e.g.
 * `10:04:05 delivery 3f2c…:1 → POST http://127.0.0.1:3000/reports  #1/4  500  retry at 10:04:07`
 * (an opt-out or an event named by its event: `sms:unsubscription d105a1ef-…`), the URL's
 * userinfo masked.
 */
export function formatAttempt(a: PushAttempt): string {
  const target = `${a.method} ${maskUrl(a.url)}`;
  const head = `${time(a.at)} ${a.event ?? a.reportType} ${a.reportId} → ${target}`;
  if (a.outcome === "skipped") return `${head}  skipped: ${a.error ?? "not pushed"}`;
  const result = a.statusCode !== null ? String(a.statusCode) : (a.error ?? "failed");
  const tail =
    a.outcome === "delivered"
      ? "delivered"
      : a.outcome === "retrying"
        ? `retry at ${a.nextAttemptAt === null ? "?" : time(a.nextAttemptAt)}`
        : `dropped after ${a.attempt} attempt${a.attempt === 1 ? "" : "s"}`;
  return `${head}  #${a.attempt}/${a.maxAttempts}  ${result}  ${tail}`;
}

/**
 * One readable line for a verification request the sandbox sent, e.g.
 * `10:04:05 verification local 1b2c… → POST http://127.0.0.1:3000/reports?token=********  200  verified`;
 * the token is masked (the outcome's URL is), and no value of a credential is shown.
 */
export function formatVerification({ webhookId, outcome }: VerificationSent): string {
  const head = `${time(outcome.at)} verification ${webhookId}`;
  if (!outcome.sent || outcome.url === null) return `${head}  not sent: ${outcome.reason ?? ""}`;
  const result = outcome.statusCode === null ? "" : `  ${outcome.statusCode}`;
  const tail = outcome.passed ? "verified" : `not verified: ${outcome.reason ?? "failed"}`;
  return `${head} → POST ${maskUrl(outcome.url)}${result}  ${tail}`;
}

function time(date: Date): string {
  return date.toTimeString().slice(0, 8);
}
