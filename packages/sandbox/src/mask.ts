import type { PushRequest } from "./push-request.js";

export const MASK = "********";

// The headers the sandbox itself sets on every push, which carry no credential. Any other
// header (one a composed template configured, whatever its name) is shown masked.
const TRANSPORT_HEADERS = new Set([
  "accept",
  "content-type",
  "content-length",
  "user-agent",
  "connection",
]);
const DECODER = new TextDecoder();
// A URL's scheme and authority up to the last "@" before its path: the userinfo to mask.
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i;

/** A push request as the sandbox shows it: body as text, credentials masked. */
export interface ShownRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
}

/**
 * The request with its credentials masked: the Authorization value after its scheme, every
 * header value but the sandbox's own transport headers, the URL's userinfo, and any
 * occurrence of `secrets` (the webhook's token and secret) in the URL, header values and body.
 */
export function maskRequest(request: PushRequest, secrets: readonly string[] = []): ShownRequest {
  const hide = (text: string) => maskText(text, secrets);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (lower === "authorization") {
      const scheme = /^(\S+)\s+\S/.exec(value)?.[1];
      headers[name] = scheme === undefined ? MASK : `${scheme} ${MASK}`;
    } else {
      headers[name] = TRANSPORT_HEADERS.has(lower) ? hide(value) : MASK;
    }
  }
  const body =
    request.body === undefined
      ? null
      : hide(typeof request.body === "string" ? request.body : DECODER.decode(request.body));
  return { method: request.method, url: maskUrl(request.url, secrets), headers, body };
}

/** The URL with its userinfo (`user:password@`) masked, and `secrets` masked anywhere in it. */
export function maskUrl(url: string, secrets: readonly string[] = []): string {
  return maskText(url.replace(USERINFO, `$1${MASK}@`), secrets);
}

/**
 * `text` with every occurrence of `secrets` replaced by the mask. A secret of 4 characters or
 * more is masked wherever it is; a shorter one (it would hide ordinary text inside words) where
 * it stands alone, with no letter or digit either side.
 */
export function maskText(text: string, secrets: readonly string[]): string {
  const sorted = secrets.filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  let out = text;
  for (const secret of sorted) {
    if (secret.length >= 4) out = out.split(secret).join(MASK);
    else {
      const escaped = secret.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
      out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, "gu"), MASK);
    }
  }
  return out;
}

/**
 * Every credential a webhook sends with its pushes, to mask wherever a push is shown (a reply
 * may echo one): its token and secret, each header value its template configures (and the
 * credential after an Authorization scheme), and its URI's userinfo with the Basic value Node
 * makes of it.
 */
export function credentialsOf(webhook: {
  uri: string;
  token: string | null;
  secret: string | null;
  composed: { headers?: Readonly<Record<string, string>> } | null;
}): string[] {
  const found: string[] = [];
  for (const value of [webhook.token, webhook.secret]) if (value !== null) found.push(value);
  for (const value of Object.values(webhook.composed?.headers ?? {})) {
    found.push(value);
    const credential = /^\S+\s+(\S.*)$/.exec(value)?.[1];
    if (credential !== undefined) found.push(credential);
  }
  const userinfo = USERINFO.exec(webhook.uri)?.[0]
    .slice(0, -1)
    .replace(/^[^:]*:\/\//, "");
  if (userinfo !== undefined) {
    const [user = "", password = ""] = userinfo.split(/:(.*)/s);
    for (const value of [userinfo, user, password]) if (value !== "") found.push(value);
    try {
      const decoded = `${decodeURIComponent(user)}:${decodeURIComponent(password)}`;
      found.push(decoded, btoa(String.fromCharCode(...new TextEncoder().encode(decoded))));
    } catch {
      // Not decodable: Node would not send it either.
    }
  }
  return found;
}
