const VERSION_SUFFIX = "/api/v2/";

/**
 * The management API's base URL as every request is built from it: absolute http(s), ending
 * in /api/v2/ (a missing final slash is added, since `new URL(path, base)` would otherwise drop
 * the version segment).
 * @throws TypeError saying what is wrong; the URL's user and password are never echoed.
 */
export function normalizeBaseUrl(baseUrl: unknown): string {
  if (typeof baseUrl !== "string" || baseUrl.trim() === "") {
    throw new TypeError(
      "reportkit client: `baseUrl` is required, e.g. https://<provider host>/api/v2/ (or http://127.0.0.1:<port>/api/v2/ for the sandbox).",
    );
  }
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw new TypeError(
      "reportkit client: `baseUrl` is not an absolute URL; give it with its scheme, e.g. https://<provider host>/api/v2/.",
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new TypeError(
      `reportkit client: \`baseUrl\` must be an http or https URL, got the scheme ${url.protocol}`,
    );
  }
  if (url.search !== "" || url.hash !== "") {
    throw new TypeError(
      "reportkit client: `baseUrl` must not have a query string or fragment; give only the address ending in /api/v2/.",
    );
  }
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  if (!url.pathname.endsWith(VERSION_SUFFIX)) {
    url.username = "";
    url.password = "";
    throw new TypeError(
      `reportkit client: \`baseUrl\` must end in ${VERSION_SUFFIX} (the management API is version 2), got ${url.href}.`,
    );
  }
  return url.href;
}
