import type { ComposedTemplate, ReceiverOptions } from "@reportkit/core";
import {
  type Attachable,
  adapterReceiver,
  attachable,
  type ReceiverBody,
  type ReceiverRequest,
  type ReceiverResponse,
} from "@reportkit/core/adapter";
import type { LambdaEventV1, LambdaHttpEvent, LambdaHttpResult } from "./lambda-events.js";

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
  const handler: LambdaHandler = (event) => {
    let request: ReceiverRequest;
    try {
      request = toReceiverRequest(event);
    } catch (error) {
      return Promise.reject(error); // an async handler's failure: Lambda logs it
    }
    const reply = receiver.respond(request);
    return reply instanceof Promise ? reply.then(toResult) : Promise.resolve(toResult(reply));
  };
  return attachable(handler, receiver);
}

/** The HTTP request an API Gateway or function-URL event describes. */
export function toReceiverRequest(event: LambdaHttpEvent): ReceiverRequest {
  if (typeof event !== "object" || event === null) throw notHttp(event);
  const body = bodyOf(event.body, event.isBase64Encoded);
  if ("version" in event && event.version === "2.0") {
    const query = event.rawQueryString ? `?${event.rawQueryString}` : "";
    const method = event.requestContext.http.method;
    return { method, url: `${event.rawPath}${query}`, headers: event.headers ?? {}, body };
  }
  const v1 = event as LambdaEventV1;
  if (typeof v1.httpMethod !== "string") throw notHttp(event);
  const headers = v1.multiValueHeaders ?? v1.headers ?? {};
  return { method: v1.httpMethod, url: `${v1.path}${queryOf(v1)}`, headers, body };
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

function bodyOf(body: string | null | undefined, base64: boolean | undefined): ReceiverBody {
  if (body === undefined || body === null) return undefined;
  if (base64 !== true) return body;
  // The bytes as sent: core decodes them by the Content-Type's charset, as for any body.
  const binary = atob(body);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
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
