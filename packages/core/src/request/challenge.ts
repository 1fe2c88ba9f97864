// The webhook's verification challenge (provider-interface.md 4.2 and 5: a webhook is created
// with a `token` "used as the verification token for an initial verification challenge"; the
// steps are not published). reportkit answers the common form by default and lets the app
// replace it: run before a report is authenticated, it never reads a body and never marks
// anything processed.

import { isThenable, type MaybePromise } from "../async/maybe-promise.js";
import type { EnvRecord } from "../receiver/env-token.js";
import { challengeUnauthorized, ReportkitError } from "../reply/errors.js";
import type { BearerResult, Credential } from "./check-bearer.js";
import type { ReceiverHeaders } from "./headers.js";

/** The reply the receiver sends for a challenge: `ReceiverResponse`'s shape, without a cause. */
interface ReceiverResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: string;
}

/** What a challenge responder sees of a request: no body (it is a report's, left unread). */
export interface ChallengeRequest {
  /** Upper case. */
  readonly method: string;
  /** Path and query ("/webhooks?challenge=abc&token=…"), or an absolute URL. */
  readonly url: string;
  readonly headers: ReceiverHeaders;
}

/** A challenge's answer; `body` defaults to "", `headers` to none. */
export interface ChallengeReply {
  status: number;
  body?: string;
  headers?: Readonly<Record<string, string>>;
}

/**
 * A responder of your own: the answer to a request that is a verification challenge, or
 * undefined for any other request (it then goes on as a report). Called for every request,
 * before authentication, so it must be cheap for the requests it does not answer.
 */
export type ChallengeResponder = (
  request: ChallengeRequest,
) => ChallengeReply | undefined | Promise<ChallengeReply | undefined>;

/** The `challenge` option: leave it out for the default responder, `false` for none. */
export type ChallengeOption = false | ChallengeResponder;

/**
 * What the receiver runs first, with the request's method (upper case) and URL as its context
 * read them: a reply, an error to reply with, or undefined (a report).
 */
export type AnswerChallenge = (
  method: string,
  url: string,
  headers: ReceiverHeaders,
  env: EnvRecord | undefined,
) => MaybePromise<ReceiverResponse | ReportkitError | undefined> | undefined;

const PLAIN_TEXT = Object.freeze({
  "content-type": "text/plain; charset=utf-8",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
});

/**
 * Checks the `challenge` option at factory time.
 * @throws TypeError for anything but undefined, false or a function
 */
export function checkChallengeOption(value: unknown): ChallengeOption | undefined {
  if (value === undefined || value === false || typeof value === "function") {
    return value as ChallengeOption | undefined;
  }
  throw new TypeError(
    `reportkit: \`challenge\` must be \`false\` (no verification challenge is answered) or a function \`(request) => ({ status, body, headers }) | undefined\`; leave it out for the default (GET ?challenge=…&token=<your token> answered with the challenge), got ${value === null ? "null" : typeof value}.`,
  );
}

/**
 * The receiver's challenge step, or undefined when there is none. The default answers a GET
 * carrying a `challenge` query parameter: 200 text/plain with its value when the `token` query
 * parameter is one of the receiver's tokens (compared by `check`, in constant time), 401
 * otherwise. A POST costs one string comparison. With a composed GET template that reads its
 * own `challenge` key from the query, the GETs are its reports: the default is off.
 *
 * @param credential the receiver's credential (its check is undefined with `auth: false`: no
 * token asked)
 */
export function challengeStep(
  option: ChallengeOption | undefined,
  credential: Credential,
  templateReadsChallengeKey: boolean,
): AnswerChallenge | undefined {
  const { check, bearer } = credential;
  if (option === false) return undefined;
  if (option !== undefined) return custom(option);
  if (templateReadsChallengeKey) return undefined;
  return (method, url, _headers, env) => {
    if (method !== "GET") return undefined;
    const q = url.indexOf("?");
    if (q === -1) return undefined;
    const query = new URLSearchParams(url.slice(q + 1));
    const challenge = query.get("challenge");
    if (challenge === null) return undefined;
    if (check === undefined) return echo(challenge);
    const token = query.get("token");
    if (token === null || token === "") return wrongToken("missing");
    const result = check(bearer ? `Bearer ${token}` : token, env);
    if (!isThenable(result)) return answer(result, challenge);
    return (result as Promise<BearerResult>).then((r) => answer(r, challenge));
  };
}

function answer(result: BearerResult, challenge: string): ReceiverResponse | ReportkitError {
  return result === "ok" ? echo(challenge) : wrongToken(result);
}

function echo(challenge: string): ReceiverResponse {
  return { status: 200, headers: PLAIN_TEXT, body: challenge };
}

function wrongToken(result: Exclude<BearerResult, "ok">): ReportkitError {
  return challengeUnauthorized(
    result === "missing"
      ? "Verification challenge without a token: send the webhook's token as the `token` query parameter (?challenge=…&token=…)."
      : "The verification challenge's `token` query parameter is not one this receiver accepts.",
    result,
  );
}

function custom(responder: ChallengeResponder): AnswerChallenge {
  return (method, url, headers) => {
    const answered = responder({ method, url, headers });
    if (answered === undefined) return undefined;
    return isThenable(answered)
      ? (answered as Promise<ChallengeReply | undefined>).then((r) =>
          r === undefined ? undefined : normalize(r),
        )
      : normalize(answered as ChallengeReply);
  };
}

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

/**
 * A challenge's answer as the reply: a response as it is, a refusal (or a responder's
 * rejection) through `refuse`; a custom
 * responder's undefined (or promise of it) lets the request through to `report`.
 */
export function settleChallenge(
  answered: MaybePromise<ReceiverResponse | ReportkitError | undefined>,
  report: () => MaybePromise<ReceiverResponse>,
  refuse: (error: unknown) => MaybePromise<ReceiverResponse>,
): MaybePromise<ReceiverResponse> {
  const settle = (a: ReceiverResponse | ReportkitError | undefined) =>
    a === undefined ? report() : a instanceof ReportkitError ? refuse(a) : a;
  if (!isThenable(answered)) return settle(answered);
  return (answered as Promise<ReceiverResponse | ReportkitError | undefined>).then(settle, refuse);
}
