import type { EnvRecord } from "../receiver/env-credentials.js";

/**
 * What the receiver accepts as proof that the provider sent the request: the webhook's secret,
 * several during a rotation, or a function that decides.
 */
export type SecretOption =
  | string
  | readonly string[]
  | ((secret: string) => boolean | Promise<boolean>);

/** @deprecated The old name of `SecretOption`. */
export type TokenOption = SecretOption;

/**
 * "missing": no credential; "not_bearer": an Authorization header that is not a Bearer
 * credential (`Authorization: secret`, `Basic …`); "invalid": a credential that matched no secret.
 */
export type BearerResult = "ok" | "missing" | "not_bearer" | "invalid";

export type BearerCheck = (headerValue: string | undefined) => BearerResult | Promise<BearerResult>;

/** A receiver's check: a BearerCheck that may read the secret from the request's environment. */
export type CredentialCheck = (
  value: string | undefined,
  env: EnvRecord | undefined,
) => BearerResult | Promise<BearerResult>;

/** How a receiver authenticates a request. */
export interface Credential {
  /** The header the credential arrives in, lowercase. */
  readonly header: string;
  /** Whether it is an `Authorization: Bearer` value; otherwise the header's whole value is. */
  readonly bearer: boolean;
  /** The check; undefined with `auth: false`. */
  readonly check: CredentialCheck | undefined;
  /**
   * The constant-time check of the webhook's verification token, or undefined when the receiver
   * has none (in its options, or in the request's environment).
   */
  readonly verifier: (env: EnvRecord | undefined) => ((key: string) => boolean) | undefined;
}

const BEARER = /^Bearer[ \t]+([^ \t]+)[ \t]*$/i;
/** An empty Authorization header, or the Bearer scheme with no token: credentials missing. */
const BEARER_OR_NOTHING = /^[ \t]*(Bearer[ \t]*,?[ \t]*)?$/i;

/**
 * Compares in time that depends only on the expected token's length, never on where the
 * strings differ. On a length mismatch it still walks the expected token (against itself).
 */
export function timingSafeEqual(actual: string, expected: string): boolean {
  return equalCodes(actual, codesOf(expected));
}

/** A constant-time comparison with `expected`, its character codes read once, here. */
export function comparerOf(expected: string): (actual: string) => boolean {
  const codes = codesOf(expected);
  return (actual) => equalCodes(actual, codes);
}

/** UTF-16 code units, as charCodeAt reads them (a string's iterator would give code points). */
function codesOf(text: string): Uint16Array {
  const codes = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) codes[i] = text.charCodeAt(i);
  return codes;
}

/**
 * Builds the credential check once, at factory time.
 *
 * With `header` unset the credential is an `Authorization: Bearer <token>` value (scheme in any
 * case), where a single trailing comma is ignored: the provider's own documented curl sample
 * sends one. With a custom header name the whole header value is the credential.
 *
 * @example
 * const check = checkBearer(["new-token", "old-token"]);
 * await check("Bearer old-token"); // "ok"
 */
export function checkBearer(token: SecretOption, header?: string): BearerCheck {
  const extract = header === undefined ? bearerToken : wholeValue;
  // Without a credential: was there none, or an Authorization header of another form?
  const absent = (value: string | undefined): BearerResult =>
    header === undefined && value !== undefined && !BEARER_OR_NOTHING.test(value)
      ? "not_bearer"
      : "missing";
  if (typeof token === "function") {
    return async (value) => {
      const presented = extract(value);
      if (presented === undefined) return absent(value);
      return (await token(presented)) === true ? "ok" : "invalid";
    };
  }
  const tokens = typeof token === "string" ? [token] : [...token];
  // Each token's character codes, read once here rather than on every request.
  const expected = tokens.map(codesOf);
  return (value) => {
    const presented = extract(value);
    if (presented === undefined) return absent(value);
    let match = false;
    // Every token is compared, so timing does not tell which one (or whether any) matched.
    for (let i = 0; i < expected.length; i++) {
      match = equalCodes(presented, expected[i] as Uint16Array) || match;
    }
    return match ? "ok" : "invalid";
  };
}

/** timingSafeEqual against character codes read once (the receiver's tokens, at construction). */
function equalCodes(actual: string, expected: Uint16Array): boolean {
  const sameLength = actual.length === expected.length;
  let diff = sameLength ? 0 : 1;
  for (let i = 0; i < expected.length; i++) {
    // On a length mismatch, compare the expected codes with themselves: same time, no reads past the end.
    diff |= (sameLength ? actual.charCodeAt(i) : (expected[i] as number)) ^ (expected[i] as number);
  }
  return diff === 0;
}

function stripComma(value: string): string {
  return value.endsWith(",") ? value.slice(0, -1) : value;
}

function bearerToken(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  // The usual "Bearer <token>" read without a regex; anything else takes the general path.
  if (value.startsWith("Bearer ")) {
    const token = stripComma(value.slice(7));
    if (token !== "" && token.indexOf(" ") === -1 && token.indexOf("\t") === -1) return token;
  }
  const m = BEARER.exec(stripComma(value));
  return m === null ? undefined : m[1];
}

/** A custom header's value, whole: HTTP's own whitespace trim, nothing else. */
function wholeValue(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  return v === "" ? undefined : v;
}
