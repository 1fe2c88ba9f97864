// What is left of a body when a request is refused before its body was read (401, 405, 415,
// 503 shutting down): read and dropped up to a small cap, so a keep-alive client's connection
// serves its next request; past the cap or the time, the reply closes the connection instead
// (an unauthenticated client once pushed 12.7 GB into a refused request in 8 s).

import { isThenable, type MaybePromise } from "../promises.js";
import type {
  NodeStyleStream,
  ReceiverBody,
  ReceiverRequest,
  ReceiverResponse,
  WebBody,
} from "../receiver/types.js";
import { closingConnection } from "../reply/replies.js";
import { getHeader } from "../request/headers.js";

/** The most of a refused body read and dropped to keep the connection: 64 KiB. */
export const DRAIN_BYTES = 65_536;

/**
 * A refused request's reply, once what is left of its unread body was read and dropped up to
 * DRAIN_BYTES and `timeoutMs`; a body that did not end by then gets `Connection: close` instead
 * of being read on.
 */
export function afterDrain(
  request: ReceiverRequest,
  response: MaybePromise<ReceiverResponse>,
  timeoutMs: number,
): MaybePromise<ReceiverResponse> {
  if (typeof request !== "object" || request === null) return response;
  const length = getHeader(request.headers ?? {}, "content-length");
  const drained = drainBody(request.body, length, timeoutMs);
  if (drained === true) return response;
  const close = (ready: ReceiverResponse) => closingConnection(ready);
  if (drained === false) return isThenable(response) ? response.then(close) : close(response);
  return drained.then((ended) => (ended ? response : Promise.resolve(response).then(close)));
}

/**
 * Reads and drops an unread body, up to DRAIN_BYTES and `timeoutMs`: true when it ended within
 * both (the connection can stay), false when the reply should close the connection. A body
 * already in hand (text, bytes, a parsed object) or none is true at once, without a promise.
 */
export function drainBody(
  body: ReceiverBody,
  contentLength: string | undefined,
  timeoutMs: number,
): boolean | Promise<boolean> {
  if (body === undefined || body === null || typeof body !== "object") return true;
  if (body instanceof Uint8Array || body instanceof ArrayBuffer || Array.isArray(body)) return true;
  const declared = Number(contentLength);
  if (declared === 0) return true;
  if (declared > DRAIN_BYTES) {
    (body as Partial<NodeStyleStream>).pause?.();
    return false;
  }
  const web = body as Partial<WebBody> & Partial<ReadableStream<Uint8Array>>;
  if (typeof web.arrayBuffer === "function" && "bodyUsed" in web) {
    if (web.bodyUsed === true || web.body === null || web.body === undefined) return true;
    return bounded(drainWeb(web.body), timeoutMs);
  }
  if (typeof web.getReader === "function") {
    return bounded(drainWeb(body as ReadableStream<Uint8Array>), timeoutMs);
  }
  const node = body as Partial<NodeStyleStream>;
  if (typeof node.on === "function" && typeof node.resume === "function") {
    return bounded(drainNode(body as unknown as NodeStyleStream), timeoutMs, () => node.pause?.());
  }
  if (Symbol.asyncIterator in body) {
    return bounded(drainIterable(body as AsyncIterable<Uint8Array | string>), timeoutMs);
  }
  return true; // an object a framework parsed: already read
}

function drainNode(stream: NodeStyleStream): Promise<boolean> {
  return new Promise((resolve) => {
    let size = 0;
    let settled = false;
    const settle = (ended: boolean) => {
      if (settled) return;
      settled = true;
      if (!ended) stream.pause?.();
      resolve(ended);
    };
    stream.on("data", (chunk) => {
      size += typeof chunk === "string" ? chunk.length : chunk.byteLength;
      if (size > DRAIN_BYTES) settle(false);
    });
    stream.on("end", () => settle(true));
    stream.on("error", () => settle(false));
    stream.resume();
  });
}

async function drainWeb(stream: ReadableStream<Uint8Array>): Promise<boolean> {
  const reader = stream.getReader();
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return true;
      size += value.byteLength;
      if (size > DRAIN_BYTES) {
        reader.cancel().catch(() => {});
        return false;
      }
    }
  } catch {
    return false;
  }
}

async function drainIterable(iterable: AsyncIterable<Uint8Array | string>): Promise<boolean> {
  // Driven by hand, as read-body does: a for-await `break` would destroy a Node request.
  const iterator = iterable[Symbol.asyncIterator]();
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await iterator.next();
      if (done) return true;
      size += typeof value === "string" ? value.length : value.byteLength;
      if (size > DRAIN_BYTES) return false;
    }
  } catch {
    return false;
  }
}

/** `draining`, or false once `timeoutMs` passed first (then `onTimeout` runs). */
function bounded(
  draining: Promise<boolean>,
  timeoutMs: number,
  onTimeout?: () => void,
): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      onTimeout?.();
      resolve(false);
    }, timeoutMs);
    draining.then((ended) => {
      clearTimeout(timer);
      resolve(ended);
    });
  });
}
