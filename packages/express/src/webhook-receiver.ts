import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type ComposedTemplate,
  createReceiver,
  type ReceiverBody,
  type ReceiverOptions,
  withEnvToken,
} from "@reportkit/core";

export type ExpressReceiverOptions<T extends ComposedTemplate | undefined = undefined> =
  ReceiverOptions<T> & {
    /**
     * Handle only requests whose full path (from `req.originalUrl`, so a router or mount path
     * counts) is exactly this; every other request goes on to `next()`. Without it, every
     * request that reaches the handler is a report.
     */
    path?: string;
  };

/** What the handler reads of a request: Express 4 and 5 requests both have it. */
export interface ExpressRequest extends IncomingMessage {
  originalUrl?: string;
  body?: unknown;
}

/** An Express request handler (Express 5 or 4). */
export type ExpressHandler = (
  req: ExpressRequest,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/**
 * The reportkit receiver as an Express handler. Works whether or not express.json(),
 * express.urlencoded(), express.text() or express.raw() ran before it.
 *
 * @example
 * app.use(webhookReceiver({ path: "/webhooks", onDelivery(report) { console.log(report.id) } }));
 */
export function webhookReceiver<const T extends ComposedTemplate | undefined = undefined>(
  options: ExpressReceiverOptions<T>,
): ExpressHandler {
  const { path, ...receiverOptions } = options;
  if (path !== undefined && (typeof path !== "string" || !path.startsWith("/"))) {
    throw new TypeError(
      `reportkit: \`path\` must be a path starting with "/", such as "/webhooks", got ${JSON.stringify(path)}.`,
    );
  }
  const receiver = createReceiver(withEnvToken(receiverOptions as ReceiverOptions<T>, process.env));
  return (req, res, next) => {
    const url = req.originalUrl ?? req.url ?? "/";
    if (path !== undefined && pathOf(url) !== path) {
      next();
      return;
    }
    const request = { method: req.method ?? "GET", url, headers: req.headers, body: bodyOf(req) };
    receiver
      .handle(request)
      .then((reply) => {
        res.writeHead(reply.status, {
          ...reply.headers,
          "content-length": Buffer.byteLength(reply.body),
        });
        res.end(reply.body);
      })
      .catch(next);
  };
}

function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The body as far as Express got with it. Untouched, the stream itself (core reads it, with the
 * size limit); read by a body parser, what the parser made of it (a Buffer from express.raw(),
 * a string from express.text(), an object from express.json() or express.urlencoded());
 * consumed by something that left nothing behind, nothing, rather than wait for an `end` that
 * already happened.
 */
function bodyOf(req: ExpressRequest): ReceiverBody {
  if (!req.readableDidRead && !req.readableEnded && req.readableFlowing !== true) return req;
  // express.json() turns an empty body into {}: what was sent is nothing.
  if (req.headers["content-length"] === "0") return "";
  const { body } = req;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  return typeof body === "object" && body !== null ? (body as Record<string, unknown>) : undefined;
}
