import { PROVIDER_TIME_ZONE } from "@reportkit/wire";
import { checkTimeZone } from "./format-wall-clock.js";
import { type PushAttempt, type ResolvedPusherOptions, resolvePusherOptions } from "./pusher.js";
import { PAYLOAD_STYLES, type PayloadStyle } from "./reports.js";
import type { ChallengeOutcome } from "./verification-challenge.js";

export interface SandboxOptions {
  /** The management API's access token: requests must send `Authorization: Bearer <token>`. */
  token: string;
  /** Default 0: any free port (read it from `baseUrl`). */
  port?: number;
  /** Default "127.0.0.1". */
  host?: string;
  /**
   * Host names (or `name:port`) the sandbox answers besides localhost, 127.0.0.1 and [::1] at
   * its port (and the address given as `host`). Any other Host gets 403: a page on a name
   * rebound to 127.0.0.1 (DNS rebinding) cannot drive the sandbox. Default none.
   */
  allowedHosts?: readonly string[];
  /** Wait between push attempts, in ms. Default 1 800 000 (30 minutes), as the provider. */
  retryIntervalMs?: number;
  /** Retries after a failed push. Default 3, as the provider. */
  retries?: number;
  /** How long a push waits for the receiver's status, in ms. Default 10 000. */
  timeoutMs?: number;
  /**
   * Zone of the reports' wall-clock fields. Default `PROVIDER_TIME_ZONE` ("Asia/Kolkata", the
   * platform is in India), the zone a receiver reads them in by default.
   */
  timeZone?: string;
  /** Told of every push attempt as it completes. */
  onAttempt?: (attempt: PushAttempt) => void;
  /**
   * The shape of the pushed reports. Default "documented": as the provider's documentation
   * shows them (no unix fields in a delivery report, no delivery time on an undelivered
   * message, no `webhook_id` in a call report, a trailing comma before the closing brace).
   * "complete": every documented field, as strict JSON.
   */
  payloads?: PayloadStyle;
  /**
   * The sandbox's clock, in ms since the epoch (default `Date.now`): the reports' times, the
   * recordings' presigned URLs (their `X-Amz-Date`) and when those expire are read from it.
   * Tests move it forward to pass the recording URLs' 2-hour window without waiting. (The
   * pusher's retries keep real time: `retryIntervalMs`.)
   */
  now?: () => number;
  /** Told of every verification request the sandbox sends a webhook, once answered (or not). */
  onVerification?: (verification: VerificationSent) => void;
  /**
   * The secret of webhooks created without one: the bearer of their pushes and of their
   * verification request. Default none (they carry no Authorization). `reportkit sandbox`
   * passes the `REPORTKIT_SECRET` of its environment, the variable the receivers read, so one
   * secret works end to end.
   */
  webhookSecret?: string;
  /**
   * @deprecated The old name of `webhookSecret`, from when the sandbox sent the webhook's token
   * as the bearer; still read. Give one of the two.
   */
  webhookToken?: string;
}

/** A verification request the sandbox sent, as `onVerification` is told of it. */
export interface VerificationSent {
  webhookId: string;
  webhookName: string;
  outcome: ChallengeOutcome;
}

/** The options once checked, with their defaults filled in (`onAttempt` is read where used). */
export interface ResolvedSandboxOptions {
  token: string;
  host: string;
  port: number;
  allowedHosts: readonly string[];
  timeZone: string;
  pushing: ResolvedPusherOptions;
  payloads: PayloadStyle;
  /** `webhookSecret` (or its old name `webhookToken`), undefined when not given or empty. */
  fallbackSecret: string | undefined;
  /** The clock, `Date.now` unless given. */
  now: () => number;
}

/**
 * Checks createSandbox's options, in a fixed order (the first wrong one is the one reported),
 * before anything starts: a wrong option throws a TypeError naming it and what it must be.
 */
export function resolveSandboxOptions(options: SandboxOptions): ResolvedSandboxOptions {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("reportkit sandbox: createSandbox(options) needs { token }.");
  }
  const { token } = options;
  if (typeof token !== "string" || token.trim() === "" || /[\s]/.test(token)) {
    throw new TypeError(
      "reportkit sandbox: `token` is required: the access token clients must send as Bearer (one word, no spaces).",
    );
  }
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 0;
  if (!Number.isSafeInteger(port) || port < 0 || port > 65_535) {
    throw new TypeError(`reportkit sandbox: \`port\` must be 0 to 65535, got ${String(port)}.`);
  }
  const allowedHosts = options.allowedHosts ?? [];
  if (
    !Array.isArray(allowedHosts) ||
    !allowedHosts.every((h) => typeof h === "string" && /^[^\s/?#@]+$/.test(h))
  ) {
    throw new TypeError(
      'reportkit sandbox: `allowedHosts` must be a list of host names, such as ["sandbox.test"] or ["sandbox.test:4010"].',
    );
  }
  const timeZone = options.timeZone ?? PROVIDER_TIME_ZONE;
  checkTimeZone(timeZone);
  const pushing = resolvePusherOptions(options, "reportkit sandbox");
  const payloads = options.payloads ?? "documented";
  if (!PAYLOAD_STYLES.includes(payloads)) {
    throw new TypeError(
      `reportkit sandbox: \`payloads\` must be "documented" or "complete", got ${JSON.stringify(payloads)}.`,
    );
  }
  const fallbackSecret = fallbackSecretOf(options);
  const now = options.now ?? Date.now;
  if (typeof now !== "function") {
    throw new TypeError(
      "reportkit sandbox: `now` must be a function giving the time in ms since the epoch, like Date.now.",
    );
  }
  return {
    token,
    host,
    port,
    allowedHosts,
    timeZone,
    pushing,
    payloads,
    fallbackSecret,
    now,
  };
}

/** `webhookSecret`, or its old name `webhookToken`: one word, undefined when empty. */
function fallbackSecretOf(options: SandboxOptions): string | undefined {
  const { webhookSecret, webhookToken } = options;
  if (webhookSecret !== undefined && webhookToken !== undefined) {
    throw new TypeError(
      "reportkit sandbox: give `webhookSecret` or `webhookToken` (its old name), not both.",
    );
  }
  const name = webhookSecret === undefined ? "webhookToken" : "webhookSecret";
  const value = webhookSecret ?? webhookToken;
  if (value !== undefined && (typeof value !== "string" || /\s/.test(value))) {
    throw new TypeError(
      `reportkit sandbox: \`${name}\` must be a secret (one word, no spaces): the bearer of webhooks created without a secret of their own, as the receiver's REPORTKIT_SECRET.`,
    );
  }
  return value === "" ? undefined : value;
}
