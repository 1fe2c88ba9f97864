// What is left of a body when a request is refused before its body was read (401, 405, 415,
// 503 shutting down): read and dropped up to a small cap, so a keep-alive client's connection
// serves its next request; past the cap or the time, the reply closes the connection instead
// (an unauthenticated client once pushed 12.7 GB into a refused request in 8 s).
import { within } from "../async/deadlines.js";
import { andThen, type MaybePromise } from "../async/maybe-promise.js";
import type { NodeStyleStream, ReceiverResponse } from "../receiver/types.js";
import { closingConnection } from "../reply/replies.js";
import type { ClassifiedBody } from "./classify-body.js";

/** The most of a refused body read and dropped to keep the connection: 64 KiB. */
export const DRAIN_BYTES = 65_536;

/**
 * A refused request's reply, once what is left of its unread body was read and dropped up to
 * DRAIN_BYTES and `timeoutMs`; a body that did not end by then gets `Connection: close` instead
 * of being read on.
 */
export function afterDrain(
  body: ClassifiedBody,
  contentLength: string | undefined,
  response: MaybePromise<ReceiverResponse>,
  timeoutMs: number,
): MaybePromise<ReceiverResponse> {
  const drained = drainBody(body, contentLength, timeoutMs);
  if (drained === true) return response;
  if (drained === false) return andThen(response, closingConnection);
  return drained.then((ended) => (ended ? response : andThen(response, closingConnection)));
}

/**
 * Reads and drops an unread body, up to DRAIN_BYTES and `timeoutMs`: true when it ended within
 * both (the connection can stay), false when the reply should close the connection. A body
 * already in hand (text, bytes, a parsed object) or none is true at once, without a promise.
 */
export function drainBody(
  body: ClassifiedBody,
  contentLength: string | undefined,
  timeoutMs: number,
): boolean | Promise<boolean> {
  switch (body.form) {
    case "none":
    case "text":
    case "bytes":
    case "parsed":
    case "failed":
      return true;
  }
  const declared = Number(contentLength);
  if (declared === 0) return true;
  if (declared > DRAIN_BYTES) {
    if (body.form === "node-stream") body.stream.pause?.();
    return false;
  }
  switch (body.form) {
    case "web-body": {
      const web = body.body;
      if (web.bodyUsed || web.body === null) return true;
      return bounded(drainWeb(web.body), timeoutMs);
    }
    case "web-stream":
      return bounded(drainWeb(body.stream), timeoutMs);
    case "node-stream": {
      const { stream } = body;
      return bounded(drainNode(stream), timeoutMs, () => stream.pause?.());
    }
    case "iterable":
      return bounded(drainIterable(body.iterable), timeoutMs);
  }
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
  return within(draining, timeoutMs, () => {
    onTimeout?.();
    return false;
  });
}
