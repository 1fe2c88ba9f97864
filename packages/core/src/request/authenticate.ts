// Who a request comes from, by the webhook's credentials. Before its body is read: the method,
// then the webhook's secret (or, for the verification alone, its token as `?token=`). Once its
// body is decoded: the webhook's verification (field-notes.md), which the provider POSTs to
// `<uri>?token=<validation key>` with `{"validation_key", "challenge"}` and deems passed on a 200
// whose JSON holds the challenge; never a report, it runs no handler.
import { isRecord } from "@reportkit/wire/internal";
import {
  type EnvRecord,
  headerOf,
  type ReceiverRequest,
  type ReceiverResponse,
} from "../base/types.js";
import {
  methodNotAllowed,
  secretCheckFailed,
  unauthorized,
  wrongValidationKey,
} from "../reply/errors.js";

/** The webhook's secret, several during a rotation, or a function that decides. */
export type SecretOption =
  | string
  | readonly string[]
  | ((secret: string) => boolean | Promise<boolean>);

/** "not_bearer": an Authorization header of another form (`Authorization: secret`, `Basic …`). */
export type SecretResult = "ok" | "missing" | "not_bearer" | "invalid";

/** The check of a presented credential, which may read the secret from the request's environment. */
export type SecretCheck = (
  value: string | undefined,
  env: EnvRecord | undefined,
) => SecretResult | Promise<SecretResult>;

/** How a receiver authenticates a request. */
export interface Credential {
  /** The header the credential arrives in, lowercase. */
  readonly header: string;
  /** Whether it is an `Authorization: Bearer` value; otherwise the header's whole value is. */
  readonly bearer: boolean;
  /** The check; undefined with `secret: false`. */
  readonly check: SecretCheck | undefined;
  /** The constant-time check of the verification token; undefined where there is none. */
  readonly verifier: (env: EnvRecord | undefined) => ((key: string) => boolean) | undefined;
}

/** Who a request is: `secret`, or `token` (only its `?token=`: a verification at most). */
export type Access = "secret" | "token";

/** The request's access, before its body is read. @throws ReportkitError 405, 401 or 500 */
export async function authenticate(
  request: ReceiverRequest,
  credential: Credential,
  allowed: string,
  handshake: boolean,
): Promise<Access> {
  // The verification is a POST whatever method a composed template's reports come with.
  if (request.method !== allowed && !(handshake && request.method === "POST")) {
    throw methodNotAllowed(request.method, allowed);
  }
  const { check, header } = credential;
  if (check === undefined) return "secret";
  let result: SecretResult;
  try {
    result = await check(headerOf(request.headers, header), request.env);
  } catch (cause) {
    throw secretCheckFailed(cause);
  }
  if (result === "ok") return "secret";
  const token = handshake ? tokenParameter(request.url) : undefined;
  const verify = token === undefined ? undefined : credential.verifier(request.env);
  if (token === undefined || verify === undefined) {
    const { bearer } = credential;
    throw unauthorized(
      result,
      bearer ? "an Authorization: Bearer <secret> header" : `the ${header} header`,
    );
  }
  if (verify(token)) return "token";
  throw wrongValidationKey();
}

/** The `token` query parameter of a URL (the provider's verification request carries it). */
export function tokenParameter(url: string): string | undefined {
  const q = url.indexOf("?");
  if (q === -1) return undefined;
  const hash = url.indexOf("#", q);
  const token = new URLSearchParams(url.slice(q + 1, hash === -1 ? undefined : hash)).get("token");
  return token === null || token === "" ? undefined : token;
}

// ---- The verification ----------------------------------------------------------------

/** What a challenge responder of your own sees of a request (its method upper case). */
export interface ChallengeRequest extends Pick<ReceiverRequest, "method" | "url" | "headers"> {
  /** The body as decoded: a JSON value (lenient: trailing commas), or a form's fields. */
  readonly body: unknown;
  /** Whether it carried a secret; false when it carried only the verification token. */
  readonly authenticated: boolean;
}

/** A challenge's answer; `body` defaults to "", `headers` to none. */
export interface ChallengeReply {
  status: number;
  body?: string;
  headers?: Readonly<Record<string, string>>;
}

/** A responder of your own: a verification's answer, or undefined (the request goes on). */
export type ChallengeResponder = (
  request: ChallengeRequest,
) => ChallengeReply | undefined | Promise<ChallengeReply | undefined>;

const JSON_REPLY = Object.freeze({
  "content-type": "application/json",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
});

/** The verification's answer, or undefined for a report. @throws ReportkitError 401 (wrong key) */
export async function answerHandshake(
  request: ReceiverRequest,
  body: unknown,
  access: Access,
  { credential, respond }: { credential: Credential; respond: ChallengeResponder | undefined },
): Promise<ReceiverResponse | undefined> {
  if (respond !== undefined) {
    const { method, url, headers } = request;
    const reply = await respond({ method, url, headers, body, authenticated: access === "secret" });
    return reply === undefined ? undefined : normalize(reply);
  }
  // A string `challenge` with a string `validation_key`, or with a `token` query parameter.
  if (!isRecord(body) || typeof body.challenge !== "string") return undefined;
  const keys = [tokenParameter(request.url), body.validation_key].filter(
    (key): key is string => typeof key === "string",
  );
  if (keys.length === 0) return undefined;
  const verify = credential.verifier(request.env);
  // Without a verification token, the request's secret is what vouches for it.
  if (verify !== undefined) {
    // Either key will do: the provider's own sample carries two that differ ("9012XX" in the
    // query, "9012XXXX" in the body). Both are compared, in constant time.
    let known = false;
    for (const key of keys) known = verify(key) || known;
    if (!known) throw wrongValidationKey();
  }
  return { status: 200, headers: JSON_REPLY, body: JSON.stringify({ challenge: body.challenge }) };
}

function normalize(reply: ChallengeReply): ReceiverResponse {
  const { status, body, headers } = (reply ?? {}) as Partial<ChallengeReply>;
  if (!Number.isInteger(status) || (status as number) < 200 || (status as number) > 599) {
    throw new TypeError(
      `reportkit: the \`verification.respond\` function returned status ${String(status)}; return { status: 200–599, body?, headers? } or undefined.`,
    );
  }
  return {
    status: status as number,
    headers: headers ?? {},
    body: typeof body === "string" ? body : "",
  };
}

// ---- The compare -------------------------------------------------------------------------

const BEARER = /^Bearer[ \t]+([^ \t]+)[ \t]*$/i;
/** An empty Authorization header, or the Bearer scheme with no token: credentials missing. */
const BEARER_OR_NOTHING = /^[ \t]*(Bearer[ \t]*,?[ \t]*)?$/i;

/** A constant-time comparison: its time depends on the presented text's length alone. */
export function comparerOf(expected: string): (actual: string) => boolean {
  const codes = new Uint16Array(expected.length);
  for (let i = 0; i < expected.length; i++) codes[i] = expected.charCodeAt(i);
  const length = codes.length;
  return (actual) => {
    let diff = actual.length ^ length;
    for (let i = 0; i < actual.length; i++) {
      diff |= actual.charCodeAt(i) ^ (codes[i % length] as number);
    }
    return diff === 0 && length > 0;
  };
}

/** A secret option's check: an `Authorization: Bearer` value, or a custom header's whole value. */
export function secretCheck(secret: SecretOption, header?: string): SecretCheck {
  const extract =
    header === undefined ? bearerValue : (value?: string) => value?.trim() || undefined;
  // Without a credential: was there none, or an Authorization header of another form?
  const absent = (value: string | undefined): SecretResult =>
    header === undefined && value !== undefined && !BEARER_OR_NOTHING.test(value)
      ? "not_bearer"
      : "missing";
  if (typeof secret === "function") {
    return async (value) => {
      const presented = extract(value);
      if (presented === undefined) return absent(value);
      return (await secret(presented)) === true ? "ok" : "invalid";
    };
  }
  const equals = (typeof secret === "string" ? [secret] : [...secret]).map(comparerOf);
  return (value) => {
    const presented = extract(value);
    if (presented === undefined) return absent(value);
    let match = false;
    // Every secret is compared, so timing does not tell which one (or whether any) matched.
    for (const equal of equals) match = equal(presented) || match;
    return match ? "ok" : "invalid";
  };
}

function bearerValue(value: string | undefined): string | undefined {
  // One trailing comma is dropped: the provider's own documented curl sample sends one.
  return value === undefined ? undefined : BEARER.exec(value.replace(/,$/, ""))?.[1];
}
