import type { ComposedTemplate, ReceiverOptions } from "@reportkit/core";
import {
  type Attachable,
  adapterReceiver,
  attachable,
  type BodyStream,
  type ReceiverRequest,
  type ReceiverResponse,
} from "@reportkit/core/adapter";
import type {
  LambdaEventV1,
  LambdaEventV2,
  LambdaHttpEvent,
  LambdaHttpResult,
} from "./lambda-events.js";

/** A Lambda handler for HTTP events: `export const handler = webhookReceiver(...)`. */
export type LambdaHandler = (
  event: LambdaHttpEvent,
  context?: unknown,
) => Promise<LambdaHttpResult>;

/** The Lambda handler, with `onDelivery` / `onCall` / `onError` to attach handlers. */
export type LambdaReceiver<
  T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
> = Attachable<LambdaHandler, T, S>;

/**
 * The reportkit receiver as an AWS Lambda handler, for API Gateway REST APIs (payload 1.0),
 * HTTP APIs (payload 2.0) and function URLs, base64 bodies included. The secret is
 * REPORTKIT_SECRET from the function's environment unless given; without either, the cold start
 * fails with a message that says so. Every reply is core's, as every adapter gives it.
 *
 * @example
 * export const handler = webhookReceiver().onDelivery((report) => console.log(report.id));
 */
export function webhookReceiver<
  const T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
>(options?: ReceiverOptions<T, S>): LambdaReceiver<T, S> {
  const receiver = adapterReceiver<T, S>(options, {
    env: (globalThis as { process?: { env?: Record<string, unknown> } }).process?.env,
  });
  const handler: LambdaHandler = async (event) => {
    let request: ReceiverRequest;
    try {
      request = toReceiverRequest(event);
    } catch (error) {
      // An async handler's failure: Lambda logs it.
      if (!(error instanceof MalformedEventError)) throw error;
      // An HTTP event without its method: refused as core refuses a body it cannot read (400,
      // after the credential), never thrown (API Gateway would answer 502).
      request = { ...error.request, body: unreadable() };
    }
    return toResult(await receiver.handle(request));
  };
  return attachable(handler, receiver);
}

/**
 * An API Gateway HTTP API or function-URL event (payload 2.0) without `requestContext.http.method`:
 * an HTTP request, but not one whose method can be read. `request` is what it does say.
 */
export class MalformedEventError extends TypeError {
  override readonly name = "MalformedEventError";
  readonly request: Omit<ReceiverRequest, "body">;

  constructor(request: Omit<ReceiverRequest, "body">) {
    super(
      "reportkit: the Lambda event (payload format 2.0) has no requestContext.http.method; API Gateway and function URLs always send it, so it did not come from one.",
    );
    this.request = request;
  }
}

/**
 * The HTTP request an API Gateway or function-URL event describes. A base64 body is decoded as
 * core reads it: after the method and the credential, and only as far as `maxBodyBytes`.
 * @throws MalformedEventError for a payload 2.0 event without its method; TypeError for an
 * event that is no HTTP request
 */
export function toReceiverRequest(event: LambdaHttpEvent): ReceiverRequest {
  if (typeof event !== "object" || event === null) throw notHttp(event);
  const body = bodyOf(event.body, event.isBase64Encoded);
  if ("version" in event && event.version === "2.0") {
    const query = event.rawQueryString ? `?${event.rawQueryString}` : "";
    const url = `${typeof event.rawPath === "string" ? event.rawPath : "/"}${query}`;
    const headers =
      typeof event.headers === "object" && event.headers !== null ? event.headers : {};
    const method = (event.requestContext as Partial<LambdaEventV2["requestContext"]> | undefined)
      ?.http?.method;
    if (typeof method !== "string") throw new MalformedEventError({ method: "POST", url, headers });
    return { method, url, headers: declared(headers, event), body };
  }
  const v1 = event as LambdaEventV1;
  if (typeof v1.httpMethod !== "string") throw notHttp(event);
  const headers = declared(v1.multiValueHeaders ?? v1.headers ?? {}, event);
  return { method: v1.httpMethod, url: `${v1.path}${queryOf(v1)}`, headers, body };
}

/**
 * The headers, with the size of a base64 body's bytes as its Content-Length when the event
 * names none: core then refuses an oversized body (413), and skips the unread rest of a
 * refused one, by that number, without decoding a byte.
 */
function declared<H extends Readonly<Record<string, unknown>>>(
  headers: H,
  event: { body?: string | null; isBase64Encoded?: boolean },
): H | (H & Record<string, string>) {
  const { body } = event;
  if (event.isBase64Encoded !== true || typeof body !== "string" || /[^A-Za-z0-9+/=]/.test(body)) {
    return headers;
  }
  if (Object.keys(headers).some((name) => name.toLowerCase() === "content-length")) return headers;
  const padding = body.endsWith("==") ? 2 : body.endsWith("=") ? 1 : 0;
  const length = Math.max(0, Math.floor((body.length * 3) / 4) - padding);
  return { ...headers, "content-length": String(length) };
}

/** Core's reply as the result API Gateway and function URLs send. */
export function toResult(reply: ReceiverResponse): LambdaHttpResult {
  return {
    statusCode: reply.status,
    headers: { ...reply.headers },
    body: reply.body,
    isBase64Encoded: false,
  };
}

function bodyOf(
  body: string | null | undefined,
  base64: boolean | undefined,
): ReceiverRequest["body"] {
  if (body === undefined || body === null) return null;
  if (base64 !== true) return body;
  // The bytes as sent: core decodes them by the Content-Type's charset, as for any body.
  return base64Bytes(body);
}

/** Base64 text per slice decoded (a multiple of 4 characters): 48 KiB of bytes at a time. */
const SLICE = 65_536;

/**
 * The bytes of a base64 body, decoded a slice at a time when core reads them: never for a
 * request refused before its body (a wrong token), and no further than core reads (it stops past
 * `maxBodyBytes`). Text that is not base64 fails the read: core answers 400 `body_read_failed`.
 */
function base64Bytes(text: string): BodyStream {
  return {
    async *[Symbol.asyncIterator]() {
      const compact = /[\t\n\f\r ]/.test(text) ? text.replace(/[\t\n\f\r ]/g, "") : text;
      for (let start = 0; start < compact.length; start += SLICE) {
        const slice = compact.slice(start, start + SLICE);
        if (start + SLICE < compact.length && slice.includes("=")) {
          throw new TypeError("the base64 body has padding before its end");
        }
        // atob throws on anything but base64 (a DOMException, InvalidCharacterError).
        const binary = atob(slice);
        const bytes = new Uint8Array(binary.length);
        for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
        yield bytes;
      }
    },
  };
}

/** A body that fails when core reads it (after the method and the credential): 400. */
function unreadable(): BodyStream {
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => Promise.reject(new TypeError("the event says no method: it is no HTTP request")),
    }),
  };
}

/** The REST API's query, decoded by API Gateway into lists, put back into a query string. */
function queryOf(event: LambdaEventV1): string {
  const multi = event.multiValueQueryStringParameters;
  const single = event.queryStringParameters;
  const params = new URLSearchParams();
  if (multi) {
    for (const [key, values] of Object.entries(multi))
      for (const v of values ?? []) params.append(key, v);
  } else if (single) {
    for (const [key, value] of Object.entries(single))
      if (value !== undefined) params.append(key, value);
  }
  const query = params.toString();
  return query === "" ? "" : `?${query}`;
}

function notHttp(event: unknown): TypeError {
  const keys =
    typeof event === "object" && event !== null ? Object.keys(event).join(", ") : typeof event;
  return new TypeError(
    `reportkit: the Lambda event is not an HTTP request (API Gateway REST or HTTP API, or a function URL); it has ${keys}. Invoke this handler through one of those integrations.`,
  );
}
