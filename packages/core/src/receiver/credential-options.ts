// How a receiver checks that the provider sent a request, from its credential options, checked
// once at construction: the token (one, several during a rotation, or a function), where it
// arrives (Authorization: Bearer, or a header of its own), or nothing with `auth: false`.
import {
  type Credential,
  type CredentialCheck,
  checkBearer,
  type TokenOption,
} from "../request/check-bearer.js";
import { TOKEN_ENV } from "./env-token.js";
import type { ReceiverOptions } from "./receiver-options.js";

/**
 * Where an adapter whose requests bring their own environment (Workers bindings, a route's
 * process.env read per request) lets the token come from: `whereToSet` says, in the 500 a
 * request without one gets, how to set it.
 */
export interface RequestEnvToken {
  readonly whereToSet: string;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
/** A Worker has one environment; tests may pass a few: the checks kept per token, at most. */
const TOKENS_KEPT = 16;

/**
 * The credential of a receiver's options.
 * @throws TypeError for options that contradict each other (`auth: false` with a token or a
 * header), a header that is no header name, or a token no request could ever match
 */
export function credentialOf(
  options: Pick<ReceiverOptions, "token" | "header" | "auth">,
  requestEnv?: RequestEnvToken,
): Credential {
  const { token, auth, header } = options as {
    token?: unknown;
    auth?: unknown;
    header?: unknown;
  };
  if (auth !== undefined && auth !== false) {
    throw new TypeError("reportkit: `auth` can only be `false` (to turn authentication off).");
  }
  if (auth === false && (token !== undefined || header !== undefined)) {
    throw new TypeError(
      `reportkit: \`auth: false\` accepts requests without any credential, so \`${token !== undefined ? "token" : "header"}\` would never be checked: give one or the other.`,
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
  if (auth === false) return { header: name, bearer, check: undefined };
  if (token === undefined && requestEnv !== undefined) {
    return { header: name, bearer, check: fromRequestEnv(bearer, name, requestEnv) };
  }
  return { header: name, bearer, check: tokenCheck(token, bearer, name) };
}

/** The check of a token: validated first (a token no request could match throws). */
function tokenCheck(token: unknown, bearer: boolean, header: string) {
  validateToken(token, bearer);
  return checkBearer(token as TokenOption, bearer ? undefined : header);
}

/** The token read from each request's environment, its check built once per token. */
function fromRequestEnv(
  bearer: boolean,
  header: string,
  { whereToSet }: RequestEnvToken,
): CredentialCheck {
  const message = `no token: ${TOKEN_ENV} is neither in the receiver's options nor ${whereToSet}, or pass \`token\`.`;
  const checks = new Map<string, CredentialCheck>();
  return (value, env) => {
    const token = env?.[TOKEN_ENV];
    if (typeof token !== "string" || token === "") {
      // A configuration problem, the same for every request: its stack would say nothing.
      const error = new Error(message);
      error.stack = `Error: ${message}`;
      return Promise.reject(error);
    }
    let check = checks.get(token);
    if (check === undefined) {
      try {
        check = tokenCheck(token, bearer, header);
      } catch (error) {
        // A token no request could match (whitespace, say): say why on every report, as 500.
        check = () => Promise.reject(error);
      }
      if (checks.size >= TOKENS_KEPT) checks.clear();
      checks.set(token, check);
    }
    return check(value, env);
  };
}

function validateToken(token: unknown, bearer: boolean): void {
  const hint = `Pass the token the provider sends (\`token\`, or the ${TOKEN_ENV} environment variable where the adapter reads it), several during a rotation, or a function; or \`auth: false\` to accept unauthenticated requests (not recommended).`;
  if (token === undefined || token === null) {
    throw new TypeError(`reportkit: no token given. ${hint}`);
  }
  if (typeof token === "function") return;
  const list = typeof token === "string" ? [token] : token;
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError(
      `reportkit: \`token\` must be a string, an array of strings or a function. ${hint}`,
    );
  }
  list.forEach((t: unknown, i: number) => {
    const where = Array.isArray(token) ? `token[${i}]` : "token";
    if (typeof t !== "string" || t.trim() === "") {
      throw new TypeError(`reportkit: \`${where}\` is empty or not a string. ${hint}`);
    }
    const problem = unmatchable(t, bearer);
    if (problem !== undefined) {
      throw new TypeError(
        `reportkit: \`${where}\` (or ${TOKEN_ENV}) ${problem}, so no request could ever match it and every report would get 401. Use the token exactly as the provider sends it: visible ASCII characters only.`,
      );
    }
  });
}

/**
 * Why a token can never match a credential a request carries, if it can't: HTTP trims a header
 * value's surrounding whitespace, a Bearer value ends at the first space, and Node reads header
 * bytes as latin1, so a non-ASCII or control character never arrives as written.
 */
function unmatchable(token: string, bearer: boolean): string | undefined {
  if (token !== token.trim()) return "has whitespace around it";
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c === 0x20 || c === 0x09) {
      if (bearer) return `has a space at character ${i + 1}`;
    } else if (c < 0x21 || c === 0x7f) return `has a control character at character ${i + 1}`;
    else if (c > 0x7e) return `has a non-ASCII character at character ${i + 1}`;
  }
  // The Bearer reader drops one trailing comma (the provider's documented curl sends one).
  if (bearer && token.endsWith(",")) return "ends with a comma, which the Bearer reader drops";
  return undefined;
}
