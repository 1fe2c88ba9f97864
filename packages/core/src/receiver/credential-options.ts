// How a receiver knows the provider sent a request, from its credential options, checked once at
// construction: the webhook's secret (one, several during a rotation, or a function; the bearer
// of every push, or the whole value of a header of its own), or nothing with `auth: false`; and
// the webhook's verification token, for the verification handshake.

import { secretMissing } from "../reply/errors.js";
import {
  type Credential,
  type CredentialCheck,
  checkBearer,
  comparerOf,
  type SecretOption,
} from "../request/check-bearer.js";
import { credentialsOf, type EnvRecord, SECRET_ENV } from "./env-credentials.js";
import type { ReceiverOptions } from "./receiver-options.js";

/**
 * Where an adapter whose requests bring their own environment (Workers bindings, a route's
 * process.env read per request) lets the secret come from: `whereToSet` says, in the 500 a
 * request without one gets, how to set it.
 */
export interface RequestEnvToken {
  readonly whereToSet: string;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
/** A Worker has one environment; tests may pass a few: the checks kept per secret, at most. */
const KEPT_PER_ENV = 16;

type CredentialInput = Pick<
  ReceiverOptions,
  "secret" | "token" | "verificationToken" | "header" | "auth"
>;

/**
 * The credential of a receiver's options, and the lines to log once about them (an old name).
 * @throws TypeError for options that contradict each other (`auth: false` with a secret or a
 * header; `secret` with `token`), a header that is no header name, or a secret or verification
 * token no request could ever match
 */
export function credentialOf(
  options: CredentialInput,
  requestEnv?: RequestEnvToken,
): { credential: Credential; renames: string[] } {
  const { secret, token, auth, header, verificationToken } = options as {
    [K in keyof CredentialInput]?: unknown;
  };
  if (auth !== undefined && auth !== false) {
    throw new TypeError("reportkit: `auth` can only be `false` (to turn authentication off).");
  }
  if (secret !== undefined && token !== undefined) {
    throw new TypeError(
      "reportkit: give `secret` (the webhook's secret) or `token`, its old name, not both: remove `token`.",
    );
  }
  const renames =
    token === undefined
      ? []
      : [
          "reportkit: the receiver's `token` option is now `secret` (the webhook's secret, the bearer of every push): rename it; `token` is read for now.",
        ];
  const given = secret ?? token;
  const givenName = secret !== undefined ? "secret" : "token";
  if (auth === false && (given !== undefined || header !== undefined)) {
    throw new TypeError(
      `reportkit: \`auth: false\` accepts requests without any credential, so \`${given !== undefined ? givenName : "header"}\` would never be checked: give one or the other.`,
    );
  }
  if (
    header !== undefined &&
    (typeof header !== "string" || !HEADER_NAME.test(header.toLowerCase()))
  ) {
    throw new TypeError(
      `reportkit: \`header\` must be a header name such as "x-api-key", got ${JSON.stringify(header)}.`,
    );
  }
  const name = typeof header === "string" ? header.toLowerCase() : "authorization";
  const bearer = header === undefined;
  const verifier = verifierOf(verificationToken, requestEnv !== undefined);
  const credential = (check: CredentialCheck | undefined): Credential => ({
    header: name,
    bearer,
    check,
    verifier,
  });
  if (auth === false) return { credential: credential(undefined), renames };
  if (given === undefined && requestEnv !== undefined) {
    return { credential: credential(fromRequestEnv(bearer, name, requestEnv)), renames };
  }
  return { credential: credential(secretCheck(given, givenName, bearer, name)), renames };
}

/** The check of a secret: validated first (a secret no request could match throws). */
function secretCheck(secret: unknown, optionName: string, bearer: boolean, header: string) {
  validateSecret(secret, optionName, bearer);
  return checkBearer(secret as SecretOption, bearer ? undefined : header);
}

/** The secret read from each request's environment, its check built once per secret. */
function fromRequestEnv(
  bearer: boolean,
  header: string,
  { whereToSet }: RequestEnvToken,
): CredentialCheck {
  const checks = new Map<string, CredentialCheck>();
  return (value, env) => {
    const { secret } = credentialsOf(env);
    // A configuration problem, the same for every request: 500, which the provider retries.
    if (secret === undefined) return Promise.reject(secretMissing(SECRET_ENV, whereToSet));
    let check = checks.get(secret);
    if (check === undefined) {
      try {
        check = secretCheck(secret, "secret", bearer, header);
      } catch (error) {
        // A secret no request could match (whitespace, say): say why on every report, as 500.
        check = () => Promise.reject(error);
      }
      if (checks.size >= KEPT_PER_ENV) checks.clear();
      checks.set(secret, check);
    }
    return check(value, env);
  };
}

/**
 * The verification token's constant-time check: the option's, or, for an adapter whose requests
 * bring their environment, REPORTKIT_VERIFICATION_TOKEN of that environment.
 */
function verifierOf(token: unknown, perRequest: boolean): Credential["verifier"] {
  if (token !== undefined) {
    if (typeof token !== "string" || token === "" || token !== token.trim()) {
      throw new TypeError(
        `reportkit: \`verificationToken\` must be the webhook's token as the provider has it (the "validation key" its verification request carries), a string without whitespace around it, got ${typeof token === "string" ? "a string with whitespace around it or empty" : typeof token}.`,
      );
    }
    const equal = comparerOf(token);
    return () => equal;
  }
  if (!perRequest) return () => undefined;
  const kept = new Map<string, (key: string) => boolean>();
  return (env: EnvRecord | undefined) => {
    const { verificationToken } = credentialsOf(env);
    if (verificationToken === undefined) return undefined;
    let equal = kept.get(verificationToken);
    if (equal === undefined) {
      equal = comparerOf(verificationToken);
      if (kept.size >= KEPT_PER_ENV) kept.clear();
      kept.set(verificationToken, equal);
    }
    return equal;
  };
}

function validateSecret(secret: unknown, optionName: string, bearer: boolean): void {
  const hint = `Pass the webhook's secret, the bearer of every push (\`secret\`, or the ${SECRET_ENV} environment variable where the adapter reads it), several during a rotation, or a function; or \`auth: false\` to accept unauthenticated requests (not recommended).`;
  if (secret === undefined || secret === null) {
    throw new TypeError(`reportkit: no secret given. ${hint}`);
  }
  if (typeof secret === "function") return;
  const list = typeof secret === "string" ? [secret] : secret;
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError(
      `reportkit: \`${optionName}\` must be a string, an array of strings or a function. ${hint}`,
    );
  }
  list.forEach((t: unknown, i: number) => {
    const where = Array.isArray(secret) ? `${optionName}[${i}]` : optionName;
    if (typeof t !== "string" || t.trim() === "") {
      throw new TypeError(`reportkit: \`${where}\` is empty or not a string. ${hint}`);
    }
    const problem = unmatchable(t, bearer);
    if (problem !== undefined) {
      throw new TypeError(
        `reportkit: \`${where}\` (or ${SECRET_ENV}) ${problem}, so no request could ever match it and every report would get 401. Use the secret exactly as the provider sends it: visible ASCII characters only.`,
      );
    }
  });
}

/**
 * Why a secret can never match a credential a request carries, if it can't: HTTP trims a header
 * value's surrounding whitespace, a Bearer value ends at the first space, and Node reads header
 * bytes as latin1, so a non-ASCII or control character never arrives as written.
 */
function unmatchable(secret: string, bearer: boolean): string | undefined {
  if (secret !== secret.trim()) return "has whitespace around it";
  for (let i = 0; i < secret.length; i++) {
    const c = secret.charCodeAt(i);
    if (c === 0x20 || c === 0x09) {
      if (bearer) return `has a space at character ${i + 1}`;
    } else if (c < 0x21 || c === 0x7f) return `has a control character at character ${i + 1}`;
    else if (c > 0x7e) return `has a non-ASCII character at character ${i + 1}`;
  }
  // The Bearer reader drops one trailing comma (the provider's documented curl sends one).
  if (bearer && secret.endsWith(",")) return "ends with a comma, which the Bearer reader drops";
  return undefined;
}
