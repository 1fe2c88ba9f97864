/** Request headers as an adapter has them: web `Headers` or a Node-style record. */
export type ReceiverHeaders =
  | Headers
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Reads one header by its lowercase name, whatever case the record's keys use. */
export function getHeader(headers: ReceiverHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  let value = headers[name];
  if (value === undefined) {
    for (const key in headers) {
      if (key.length === name.length && key.toLowerCase() === name) {
        value = headers[key];
        break;
      }
    }
  }
  if (value === undefined) return undefined;
  return typeof value === "string" ? value : value.join(", ");
}

/**
 * Copies headers into a web `Headers`, leaving out the ones that carry credentials, so handler
 * and onError code can log `ctx.headers` without leaking a token.
 */
export function redactedHeaders(headers: ReceiverHeaders, secretHeader: string): Headers {
  const out = new Headers();
  const entries: Iterable<[string, string | readonly string[] | undefined]> =
    headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [key, value] of entries) {
    const lower = key.toLowerCase();
    // HTTP/2 pseudo-headers (":method", ":path") are not headers to a web Headers object.
    if (value === undefined || lower[0] === ":") continue;
    if (lower === "authorization" || lower === secretHeader) continue;
    try {
      out.set(lower, typeof value === "string" ? value : value.join(", "));
    } catch {
      // A name or value web Headers refuses is left out, rather than fail the handler.
    }
  }
  return out;
}
