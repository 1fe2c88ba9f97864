// The `challenge` option's types, and its check at construction: how an app replaces or turns
// off the answer to the webhook's verification handshake (request/challenge.ts).
import type { ReceiverHeaders } from "./headers.js";

/** What a challenge responder of your own sees of a request. */
export interface ChallengeRequest {
  /** Upper case. */
  readonly method: string;
  /** Path and query ("/webhooks?token=…"), or an absolute URL. */
  readonly url: string;
  readonly headers: ReceiverHeaders;
  /** The body as decoded: a JSON value (lenient: trailing commas), or a form's fields. */
  readonly body: unknown;
  /**
   * Whether the request carried one of the receiver's secrets. A responder also sees requests
   * that did not (their body read under the same limits), so that it can answer a verification
   * that carries none; for anything else it returns undefined and they get their 401.
   */
  readonly authenticated: boolean;
}

/** A challenge's answer; `body` defaults to "", `headers` to none. */
export interface ChallengeReply {
  status: number;
  body?: string;
  headers?: Readonly<Record<string, string>>;
}

/**
 * A responder of your own: the answer to a request that is a verification, or undefined for
 * any other request (it then goes on as a report, or as the 401 of one without a secret).
 */
export type ChallengeResponder = (
  request: ChallengeRequest,
) => ChallengeReply | undefined | Promise<ChallengeReply | undefined>;

/** The `challenge` option: leave it out for the provider's handshake, `false` for none. */
export type ChallengeOption = false | ChallengeResponder;

/**
 * Checks the `challenge` option at factory time.
 * @throws TypeError for anything but undefined, false or a function
 */
export function checkChallengeOption(value: unknown): ChallengeOption | undefined {
  if (value === undefined || value === false || typeof value === "function") {
    return value as ChallengeOption | undefined;
  }
  throw new TypeError(
    `reportkit: \`challenge\` must be \`false\` (no verification is answered) or a function \`(request) => ({ status, body, headers }) | undefined\`; leave it out for the provider's handshake (a POST with {"validation_key", "challenge"} answered {"challenge"}), got ${value === null ? "null" : typeof value}.`,
  );
}
