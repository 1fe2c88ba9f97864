import type { PushRequest } from "./push-request.js";

export const MASK = "********";

// Header names whose values are credentials whatever the template calls them.
const SENSITIVE_HEADER = /auth|token|secret|key|signature|password|cookie|session/i;
const DECODER = new TextDecoder();

/** A push request as the sandbox shows it: body as text, credentials masked. */
export interface ShownRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
}

/**
 * The request with its credentials masked: the Authorization value after its scheme, every
 * header named like a credential, and any occurrence of `secrets` (the webhook's token and
 * secret) in the URL, header values and body.
 */
export function maskRequest(request: PushRequest, secrets: readonly string[] = []): ShownRequest {
  const hide = (text: string) => maskText(text, secrets);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (name.toLowerCase() === "authorization") {
      const scheme = /^(\S+)\s+\S/.exec(value)?.[1];
      headers[name] = scheme === undefined ? MASK : `${scheme} ${MASK}`;
    } else {
      headers[name] = SENSITIVE_HEADER.test(name) ? MASK : hide(value);
    }
  }
  const body =
    request.body === undefined
      ? null
      : hide(typeof request.body === "string" ? request.body : DECODER.decode(request.body));
  return { method: request.method, url: hide(request.url), headers, body };
}

/** `text` with every occurrence of `secrets` replaced by the mask. */
export function maskText(text: string, secrets: readonly string[]): string {
  // Short strings would mask ordinary text; a credential is at least 4 characters here.
  const hidden = secrets.filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  return hidden.reduce((t, secret) => t.split(secret).join(MASK), text);
}
