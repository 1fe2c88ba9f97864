// The capped body-reading loop reportkit's packages share: core reads a Web stream or an
// async iterable this way, the client a response, the sandbox a request. Core's Node-stream
// path (read-body.ts) reads by events instead, with no promise per chunk; it shares the
// concatenation. What to do once over the limit (cancel, drain, the error) stays the caller's.

const encoder = new TextEncoder();

/**
 * One step of a body being read: a chunk or the end. A Web stream reader's `read()` and an
 * async iterator's `next()` (a Node request's) both give this; a string chunk is UTF-8.
 */
export type BodyChunk =
  | { readonly done?: false; readonly value: Uint8Array | string }
  | { readonly done: true; readonly value?: unknown };

/** The whole body, or how many bytes had arrived when it passed the limit. */
export type CappedBody =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly received: number };

/**
 * Reads chunks until the end or until their total passes `limit`, holding `limit` bytes at
 * most: a huge or endless body stops at the first chunk past it, and the source is left as it
 * is (the caller cancels it, drains it or lets it go). A failing `next` rejects as it does.
 * @example
 * const reader = response.body.getReader();
 * const read = await readCapped(() => reader.read(), 1_048_576);
 * if (!read.ok) await reader.cancel();
 */
export async function readCapped(
  next: () => Promise<BodyChunk>,
  limit: number,
): Promise<CappedBody> {
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await next();
    if (done) return { ok: true, bytes: concatBytes(chunks, received) };
    const chunk = typeof value === "string" ? encoder.encode(value) : value;
    received += chunk.byteLength;
    if (received > limit) return { ok: false, received };
    chunks.push(chunk);
  }
}

/** Chunks as one array of `size` bytes (the chunk itself when there is one). */
export function concatBytes(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
