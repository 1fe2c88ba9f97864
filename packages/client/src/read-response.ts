import { readCapped } from "@reportkit/wire/internal";

/** The response was larger than `maxResponseBytes`; what was read so far is dropped. */
export class ResponseTooLarge extends Error {
  override name = "ResponseTooLarge";
  constructor(
    /** The HTTP status of the response. */
    readonly status: number,
    readonly limit: number,
    /** The Content-Length the server declared, when it declared one. */
    readonly declared: number | undefined,
  ) {
    super(`response larger than ${limit} bytes`);
  }
}

/**
 * Reads a response body as UTF-8 text, at most `limit` bytes. A declared Content-Length over
 * the limit is refused before reading; otherwise the stream is read chunk by chunk and
 * cancelled as soon as it passes the limit, so a huge or endless body costs `limit` bytes of
 * memory at most.
 * @throws ResponseTooLarge
 */
export async function readResponseText(response: Response, limit: number): Promise<string> {
  const header = response.headers.get("content-length");
  const declared = header !== null && /^\d+$/.test(header.trim()) ? Number(header) : undefined;
  if (declared !== undefined && declared > limit) {
    await response.body?.cancel().catch(() => {});
    throw new ResponseTooLarge(response.status, limit, declared);
  }
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const read = await readCapped(() => reader.read(), limit);
  if (!read.ok) {
    await reader.cancel().catch(() => {});
    throw new ResponseTooLarge(response.status, limit, declared);
  }
  // Decoded as Response.text() does: UTF-8, a leading BOM dropped, bad bytes replaced.
  return new TextDecoder().decode(read.bytes);
}
