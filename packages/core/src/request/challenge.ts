// The webhook's verification handshake, as the provider's page shows it (field-notes.md): when a
// webhook is created with a token, the provider POSTs `<uri>?token=<validation key>` with
// `Authorization: Bearer <secret>` and the JSON body
// `{"validation_key": "<validation key>", "challenge": "<random text>"}` (the page's sample ends
// with a trailing comma), and verifies the webhook only on a 200 whose JSON holds the challenge.
// It is recognised once the body is decoded, before it is parsed as a report: it is never a
// report, runs no handler and marks nothing processed.

import { isRecord } from "@reportkit/wire/internal";
import { andThen, type MaybePromise } from "../async/maybe-promise.js";
import type { ReceiverResponse } from "../receiver/types.js";
import { challengeUnauthorized, type ReportkitError } from "../reply/errors.js";
import type { ChallengeOption, ChallengeReply, ChallengeResponder } from "./challenge-option.js";
import type { Credential } from "./check-bearer.js";
import type { RequestState } from "./request-state.js";

/** A verification answered: its reply, in place of a report. */
export class Answered {
  constructor(readonly response: ReceiverResponse) {}
}

/**
 * The receiver's verification step, given a request and its decoded body: undefined when the
 * body is no verification (a report, then), else the reply, or the refusal to reply with.
 */
export type VerificationStep = (
  request: RequestState,
  body: unknown,
) => MaybePromise<Answered | ReportkitError> | undefined;

export interface Verification {
  readonly step: VerificationStep;
  /** Whether a request without a secret may still be one (its body is then read to see). */
  readonly withoutSecret: (request: RequestState) => boolean;
}

const JSON_REPLY = Object.freeze({
  "content-type": "application/json",
  "cache-control": "no-store",
});

/**
 * The receiver's verification, or undefined when there is none (`challenge: false`, or a
 * composed template whose own keys are the handshake's, so its bodies are its reports).
 */
export function verificationOf(
  option: ChallengeOption | undefined,
  credential: Credential,
  templateUsesHandshakeKeys: boolean,
): Verification | undefined {
  if (option === false) return undefined;
  if (option !== undefined) return custom(option);
  if (templateUsesHandshakeKeys) return undefined;
  return {
    // Without a secret, only a receiver that knows the verification token can tell.
    withoutSecret: (request) => credential.verifier(request.env) !== undefined,
    step(request, body) {
      const handshake = handshakeOf(body, request.url);
      if (handshake === undefined) return undefined;
      request.verification = true;
      const verify = credential.verifier(request.env);
      if (verify === undefined) {
        // No verification token: the request's secret is what vouches for it.
        return request.authenticated
          ? echo(handshake.challenge)
          : challengeUnauthorized(
              "The verification request carries no secret this receiver accepts, and the receiver has no verificationToken to check its validation key against: give `verificationToken` (REPORTKIT_VERIFICATION_TOKEN), the webhook's token.",
              "missing",
            );
      }
      // Either key will do: the provider's own sample carries two that differ ("9012XX" in the
      // query, "9012XXXX" in the body). Both are compared, in constant time.
      let known = false;
      for (const key of handshake.keys) known = verify(key) || known;
      if (known) return echo(handshake.challenge);
      return challengeUnauthorized(
        "The verification request's validation key (its `token` query parameter or `validation_key`) is not this receiver's verificationToken.",
        "invalid",
      );
    },
  };
}

/**
 * The handshake a decoded body and URL carry: a string `challenge` with a string
 * `validation_key`, or with a `token` query parameter.
 */
export function handshakeOf(
  body: unknown,
  url: string,
): { challenge: string; keys: string[] } | undefined {
  if (!isRecord(body)) return undefined;
  const { challenge, validation_key: validationKey } = body;
  if (typeof challenge !== "string") return undefined;
  const queryToken = tokenParameter(url);
  if (typeof validationKey !== "string" && queryToken === undefined) return undefined;
  const keys: string[] = [];
  if (queryToken !== undefined) keys.push(queryToken);
  if (typeof validationKey === "string") keys.push(validationKey);
  return { challenge, keys };
}

function tokenParameter(url: string): string | undefined {
  const q = url.indexOf("?");
  if (q === -1) return undefined;
  const hash = url.indexOf("#", q);
  return (
    new URLSearchParams(url.slice(q + 1, hash === -1 ? undefined : hash)).get("token") ?? undefined
  );
}

function echo(challenge: string): Answered {
  return new Answered({
    status: 200,
    headers: JSON_REPLY,
    body: JSON.stringify({ challenge }),
  });
}

function custom(responder: ChallengeResponder): Verification {
  return {
    withoutSecret: () => true,
    step(request, body) {
      const answered = responder({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body,
        authenticated: request.authenticated,
      });
      if (answered === undefined) return undefined;
      request.verification = true;
      return andThen(answered, (reply) =>
        reply === undefined ? unanswered(request) : new Answered(normalize(reply)),
      );
    },
  };
}

/** A responder's promise of undefined: a report, unless no secret came with it. */
function unanswered(request: RequestState): Answered | ReportkitError {
  request.verification = false;
  return NOT_ANSWERED;
}

/** What a responder's late undefined stands for: the request goes on (see read-report.ts). */
export const NOT_ANSWERED = new Answered({ status: 0, headers: {}, body: "" });

function normalize(reply: ChallengeReply): ReceiverResponse {
  const { status, body, headers } = (reply ?? {}) as Partial<ChallengeReply>;
  if (!Number.isInteger(status) || (status as number) < 200 || (status as number) > 599) {
    throw new TypeError(
      `reportkit: the \`challenge\` function returned status ${String(status)}; return { status: 200–599, body?, headers? } or undefined.`,
    );
  }
  return {
    status: status as number,
    headers: headers ?? {},
    body: typeof body === "string" ? body : "",
  };
}
