import type { IncomingMessage, ServerResponse } from "node:http";
import type { ComposedTemplate, ReceiverOptions } from "@reportkit/core";
import {
  type Attachable,
  adapterReceiver,
  attachable,
  type ReceiverBody,
  type ReceiverResponse,
} from "@reportkit/core/adapter";

export type ExpressReceiverOptions<
  T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
> = ReceiverOptions<T, S> & {
  /**
   * Handle only requests whose full path (from `req.originalUrl`, so a router or mount path
   * counts) is this, matched as Express routes by default (any case, one trailing slash
   * allowed); every other request goes on to `next()`. Without it: on a route
   * (`app.post("/hooks", handler)`) every request that reaches the handler is a report; under a
   * mount path (`app.use("/hooks", handler)`) the mount path itself is, and the paths below it
   * only with a composed template (its URL's own path); used bare (`app.use(handler)`), it takes
   * /webhooks and the paths under it. Everything else goes on to `next()`.
   */
  path?: string;
};

/** Where `app.use(webhookReceiver())`, with no path and no mount path, listens. */
const DEFAULT_PATH = "/webhooks";

/** What the handler reads of a request: Express 4 and 5 requests both have it. */
export interface ExpressRequest extends IncomingMessage {
  originalUrl?: string;
  body?: unknown;
}

/** What Express sets on a request that went through a mount path or a route. */
interface RoutedRequest extends ExpressRequest {
  baseUrl?: string;
  route?: unknown;
}
/** An Express request handler (Express 5 or 4). */
export type ExpressHandler = (
  req: ExpressRequest,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/**
 * The reportkit receiver as an Express handler, with the token from REPORTKIT_TOKEN unless
 * given. Works whether or not express.json(), express.urlencoded(), express.text() or
 * express.raw() ran before it. Handlers go in the options or are attached after; until one is,
 * reports get 503 `no_handler` (the provider retries), so none is lost while the app starts.
 *
 * @example
 * app.use(webhookReceiver().onDelivery((report) => console.log(report.id, report.status)));
 * app.use(webhookReceiver({ path: "/webhooks", onCall(report) { console.log(report.to) } }));
 */
export function webhookReceiver<
  const T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
>(options?: ExpressReceiverOptions<T, S>): ExpressReceiver<T, S> {
  const { receiver, takesSubPaths } = adapterReceiver<T, S>(options, { env: process.env });
  const path = options?.path;
  if (path !== undefined && (typeof path !== "string" || !path.startsWith("/"))) {
    throw new TypeError(
      `reportkit: \`path\` must be a path starting with "/", such as "/webhooks", got ${JSON.stringify(path)}.`,
    );
  }
  const expected = path === undefined ? undefined : routeKey(path);
  const handler: ExpressHandler = (req: RoutedRequest, res, next) => {
    const url = req.originalUrl ?? req.url ?? "/";
    if (
      expected === undefined
        ? !servedWithoutPath(req, url, takesSubPaths)
        : routeKey(pathOf(url)) !== expected
    ) {
      next();
      return;
    }
    const request = { method: req.method ?? "GET", url, headers: req.headers, body: bodyOf(req) };
    const reply = receiver.respond(request);
    // A body parser already ran and the handler returned: answered without a promise.
    if (reply instanceof Promise) reply.then((ready) => send(res, ready)).catch(next);
    else send(res, reply);
  };
  return attachable(handler, receiver);
}

function send(res: ServerResponse, reply: ReceiverResponse): void {
  res.writeHead(reply.status, {
    ...reply.headers,
    "content-length": Buffer.byteLength(reply.body),
  });
  res.end(reply.body);
}

/** The Express handler, with `onDelivery` / `onCall` / `onError` to attach handlers. */
export type ExpressReceiver<
  T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
> = Attachable<ExpressHandler, T, S>;

/** A path as Express's default routing compares it: any case, one trailing slash ignored. */
function routeKey(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith("/") ? lower.slice(0, -1) : lower;
}

/**
 * Without `path`: a route of the app's matched the request itself; under a mount path, the
 * mount point's own path is the receiver's, and the paths below it with a composed template;
 * used bare, /webhooks and the paths under it.
 */
function servedWithoutPath(req: RoutedRequest, url: string, takesSubPaths: boolean): boolean {
  if (req.route !== undefined) return true;
  if (req.baseUrl) {
    const below = pathOf(req.url ?? "/");
    return takesSubPaths || below === "/" || below === "";
  }
  const key = routeKey(pathOf(url));
  return key === DEFAULT_PATH || key.startsWith(`${DEFAULT_PATH}/`);
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
