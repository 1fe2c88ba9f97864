// A request body comes in whatever form the adapter's framework holds it. It is classified once,
// where the request enters the receiver, into a tagged union; reading, draining, decoding and
// the failure journal switch on the tag instead of sniffing the object again.

import type { NodeStyleStream, ReceiverBody, WebBody } from "../receiver/types.js";
import type { ReportkitError } from "../reply/errors.js";

/** A body in hand: nothing, text, bytes, or what a framework's parser made of it. */
export type BodyContent =
  | { readonly form: "none" }
  | { readonly form: "text"; readonly text: string }
  | { readonly form: "bytes"; readonly bytes: Uint8Array }
  | { readonly form: "parsed"; readonly value: ParsedValue };

/** A body still to be read, or one whose reading already failed in the framework. */
export type PendingBody =
  | { readonly form: "web-body"; readonly body: WebBody }
  | { readonly form: "web-stream"; readonly stream: ReadableStream<Uint8Array> }
  | { readonly form: "node-stream"; readonly stream: NodeStyleStream }
  | { readonly form: "iterable"; readonly iterable: AsyncIterable<Uint8Array | string> }
  | { readonly form: "failed"; readonly error: ReportkitError };

export type ClassifiedBody = BodyContent | PendingBody;

/** An object, an array or a scalar a framework's body parser produced. */
export type ParsedValue = Record<string, unknown> | readonly unknown[] | number | boolean;

export const NO_BODY: BodyContent = Object.freeze({ form: "none" });

export function classifyBody(body: ReceiverBody): ClassifiedBody {
  if (body === undefined || body === null) return NO_BODY;
  if (typeof body === "string") return { form: "text", text: body };
  // A scalar a framework parsed (a JSON 5 or true) is no stream: parsing will say it is no report.
  if (typeof body !== "object") return { form: "parsed", value: body as number | boolean };
  if (body instanceof Uint8Array) return { form: "bytes", bytes: body };
  if (body instanceof ArrayBuffer) return { form: "bytes", bytes: new Uint8Array(body) };
  if (Array.isArray(body)) return { form: "parsed", value: body };
  if (isWebBody(body)) return { form: "web-body", body };
  if (typeof (body as ReadableStream).getReader === "function") {
    return { form: "web-stream", stream: body as ReadableStream<Uint8Array> };
  }
  if (isNodeStyleStream(body)) return { form: "node-stream", stream: body };
  if (Symbol.asyncIterator in body) {
    return { form: "iterable", iterable: body as AsyncIterable<Uint8Array | string> };
  }
  return { form: "parsed", value: body as Record<string, unknown> };
}

/** A body whose reading failed in the framework (its body limit, say) with `error`. */
export function failedBody(error: ReportkitError): PendingBody {
  return { form: "failed", error };
}

function isWebBody(body: object): body is WebBody {
  return (
    typeof (body as WebBody).arrayBuffer === "function" &&
    typeof (body as WebBody).text === "function" &&
    "bodyUsed" in body
  );
}

function isNodeStyleStream(body: object): body is NodeStyleStream {
  return (
    typeof (body as NodeStyleStream).on === "function" &&
    typeof (body as NodeStyleStream).resume === "function"
  );
}
