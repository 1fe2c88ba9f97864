import type { ServerResponse } from "node:http";
import type { ComposedTemplate, ReceiverOptions } from "@reportkit/core";
import {
  type Attachable,
  adapterReceiver,
  attachable,
  type ReceiverResponse,
} from "@reportkit/core/adapter";
import {
  type ExpressRequest,
  PARSED_BEFORE,
  pathOf,
  type RoutedRequest,
  requestOf,
  routeKey,
  servedWithoutPath,
} from "./express-request.js";

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

/** An Express request handler (Express 5 or 4). */
export type ExpressHandler = (
  req: ExpressRequest,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/**
 * The reportkit receiver as an Express handler, with the secret from REPORTKIT_SECRET
 * unless given. Works whether or not express.json(), express.urlencoded(), express.text() or
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
  const receiver = adapterReceiver<T, S>(options, { env: process.env, mountOptions: ["path"] });
  const path = options?.path;
  // A composed template's URL may carry a path of its own below the mount point.
  const takesSubPaths = options?.composed !== undefined;
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
    const { request, parsed } = requestOf(req, url);
    if (parsed) receiver.say(PARSED_BEFORE);
    receiver.handle(request).then((reply) => send(res, reply), next);
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
