import type http from "node:http";
import { isRecord, readCapped } from "@reportkit/wire/internal";
import { fail, type JsonReply } from "./laravel.js";

/** The largest request body the sandbox's API takes. */
export const MAX_BODY_BYTES = 1_048_576;

/**
 * How much of an oversized body is read and thrown away so the connection can serve the
 * client's next request (keep-alive). Beyond it, the 413 closes the connection instead of
 * reading on.
 */
const MAX_DRAIN_BYTES = 8 * MAX_BODY_BYTES;

export type BodyResult =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; reply: JsonReply };

/**
 * Reads a request body of at most `MAX_BODY_BYTES` as a JSON object (or form fields).
 *
 * An oversized body gets a 413 without breaking the connection: the iterator is driven by hand
 * (a for-await `break` destroys the request and leaves a keep-alive client's socket hanging or
 * reset), the rest of the body is read and dropped up to `MAX_DRAIN_BYTES` so the connection
 * stays usable, and past that (or when Content-Length already says so) the 413 carries
 * `Connection: close`, so Node closes the socket after the reply and a keep-alive client opens
 * a new one.
 */
export async function readRequestBody(req: http.IncomingMessage): Promise<BodyResult> {
  const declared = Number(req.headers["content-length"] ?? Number.NaN);
  if (declared > MAX_DRAIN_BYTES) return { ok: false, reply: tooLarge(true) };
  const iterator = (req as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const read = await readCapped(() => iterator.next(), MAX_BODY_BYTES);
  if (!read.ok) return { ok: false, reply: tooLarge(!(await drain(iterator, read.received))) };
  const { bytes } = read;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  return parseBody(text, req.headers["content-type"]);
}

/** Reads and drops the rest of the body; false when it passed MAX_DRAIN_BYTES first. */
async function drain(iterator: AsyncIterator<Buffer>, read: number): Promise<boolean> {
  let size = read;
  while (size <= MAX_DRAIN_BYTES) {
    const { done, value } = await iterator.next();
    if (done) return true;
    size += value.length;
  }
  return false;
}

function tooLarge(closeConnection: boolean): JsonReply {
  return fail(
    413,
    `The request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB).`,
    undefined,
    closeConnection ? { connection: "close" } : undefined,
  );
}

function parseBody(text: string, contentType: string | undefined): BodyResult {
  if (text.trim() === "") return { ok: true, value: {} };
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase();
  if (type === "application/x-www-form-urlencoded") {
    const fields = [...new URLSearchParams(text)];
    const refused = refusedKey(
      fields.map(([key]) => key),
      false,
    );
    if (refused !== undefined) return refused;
    return { ok: true, value: Object.assign(Object.create(null), Object.fromEntries(fields)) };
  }
  let parsed: unknown;
  let nestedProto = false;
  try {
    parsed = JSON.parse(text, (key, value) => {
      if (key === "__proto__") nestedProto = true;
      return value;
    });
  } catch {
    return {
      ok: false,
      reply: fail(400, "The request body is not valid JSON; send a JSON object."),
    };
  }
  if (!isRecord(parsed)) {
    return { ok: false, reply: fail(400, "The request body must be a JSON object.") };
  }
  const refused = refusedKey(Object.keys(parsed), nestedProto);
  if (refused !== undefined) return refused;
  return { ok: true, value: Object.assign(Object.create(null), parsed) };
}

/** Keys that name an object's prototype machinery: no field of the API has such a name. */
const PROTOTYPE_KEYS = ["__proto__", "constructor", "prototype"];

/**
 * A 422 for a body with a "__proto__" key (at any depth) or a top-level "constructor" or
 * "prototype" key: no field is called so, and such a key must never reach an object's
 * prototype on its way through the sandbox (a template's keys, a field-error table).
 */
function refusedKey(topLevel: readonly string[], nestedProto: boolean): BodyResult | undefined {
  const key =
    topLevel.find((k) => PROTOTYPE_KEYS.includes(k)) ?? (nestedProto ? "__proto__" : undefined);
  if (key === undefined) return undefined;
  const message = `The request body has a "${key}" key, which no field of this API has and which could reach an object's prototype; leave it out.`;
  const errors: Record<string, string[]> = Object.create(null);
  errors[key] = [message];
  return { ok: false, reply: fail(422, message, errors) };
}
