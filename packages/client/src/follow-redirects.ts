/** Redirect statuses; 301, 302 and 303 turn a POST into a GET without a body, as fetch does. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;

/** A redirect the client will not follow: it says where to, never with what. */
export class RedirectRefused extends Error {
  override readonly name = "RedirectRefused";
}

/**
 * fetch, following redirects only within the request's origin when it carries a body. The
 * body of a create or an edit holds the webhook's token and secret: on a 307 or 308, fetch
 * would send it to whatever origin the server names (it drops only the Authorization header).
 * A request without a body follows redirects as fetch does.
 * @throws RedirectRefused for a redirect of a request with a body to another origin
 */
export async function fetchWithinOrigin(
  fetch: typeof globalThis.fetch,
  url: URL,
  init: RequestInit & { method: string; headers: Record<string, string> },
): Promise<Response> {
  if (init.body === undefined || init.body === null)
    return fetch(url, { ...init, redirect: "follow" });
  let target = url;
  let { method, headers } = init;
  let body: BodyInit | null = init.body;
  for (let hop = 0; ; hop++) {
    const response = await fetch(target, { ...init, method, body, headers, redirect: "manual" });
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || location === null) return response;
    await response.body?.cancel();
    const next = new URL(location, target);
    if (next.origin !== url.origin) {
      throw new RedirectRefused(
        `the server redirected it (${response.status}) to another origin, ${next.origin}, which was not followed: the request body carries the webhook's credentials. Set baseUrl to the address the API really answers at`,
      );
    }
    if (hop === MAX_REDIRECTS) {
      throw new RedirectRefused(`more than ${MAX_REDIRECTS} redirects`);
    }
    if (response.status === 303 || (response.status !== 307 && response.status !== 308)) {
      if (method !== "GET" && method !== "HEAD") {
        method = "GET";
        body = null;
        const { "content-type": _, ...rest } = headers;
        headers = rest;
      }
    }
    target = next;
  }
}
