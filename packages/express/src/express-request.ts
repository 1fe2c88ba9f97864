// What the handler reads of an Express request: whether it is the receiver's (its path, the
// mount path or route Express matched) and the body as far as Express got with it.
import type { IncomingMessage } from "node:http";
import type { ReceiverRequest } from "@reportkit/core/adapter";
import { parsedBody } from "./parsed-body.js";

/** Where `app.use(webhookReceiver())`, with no path and no mount path, listens. */
const DEFAULT_PATH = "/webhooks";

/** What the handler reads of a request: Express 4 and 5 requests both have it. */
export interface ExpressRequest extends IncomingMessage {
  originalUrl?: string;
  body?: unknown;
}

/** What Express sets on a request that went through a mount path or a route. */
export interface RoutedRequest extends ExpressRequest {
  baseUrl?: string;
  route?: unknown;
}
/** A path as Express's default routing compares it: any case, one trailing slash ignored. */
export function routeKey(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith("/") ? lower.slice(0, -1) : lower;
}

/**
 * Without `path`: a route of the app's matched the request itself; under a mount path, the
 * mount point's own path is the receiver's, and the paths below it with a composed template;
 * used bare, /webhooks and the paths under it.
 */
export function servedWithoutPath(
  req: RoutedRequest,
  url: string,
  takesSubPaths: boolean,
): boolean {
  if (req.route !== undefined) return true;
  if (req.baseUrl) {
    const below = pathOf(req.url ?? "/");
    return takesSubPaths || below === "/" || below === "";
  }
  const key = routeKey(pathOf(url));
  return key === DEFAULT_PATH || key.startsWith(`${DEFAULT_PATH}/`);
}

export function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

/** Said once when a body parser ran before the receiver. */
export const PARSED_BEFORE =
  "reportkit: a body parser ran before the receiver (the body arrived already parsed). A report that parser cannot read (the provider's documented samples end with a trailing comma) gets the parser's own error and never reaches reportkit, and the provider drops it after 4 attempts: mount the receiver before the body parser (Express: app.use(webhookReceiver()) before app.use(express.json())). Logged once.";

/**
 * The request as core reads it, from what Express got of it. Its body untouched: the stream
 * itself (core reads it, with the size limit). Read by a body parser: what the parser made of it
 * (a Buffer from express.raw(), a string from express.text(), an object from express.json(),
 * express.urlencoded() or multer, as text again with the Content-Type that says how); consumed
 * by something that left nothing behind: nothing, rather than wait for an `end` that already
 * happened. `parsed` says a parser made an object of it.
 */
export function requestOf(
  req: ExpressRequest,
  url: string,
): { request: ReceiverRequest; parsed: boolean } {
  const base = { method: req.method ?? "GET", url, headers: req.headers };
  if (!req.readableDidRead && !req.readableEnded && req.readableFlowing !== true) {
    return { request: { ...base, body: req }, parsed: false };
  }
  // express.json() turns an empty body into {}: what was sent is nothing.
  if (req.headers["content-length"] === "0")
    return { request: { ...base, body: "" }, parsed: false };
  const { body } = req;
  if (typeof body === "string" || body instanceof Uint8Array) {
    return { request: { ...base, body }, parsed: false };
  }
  if (typeof body !== "object" || body === null) {
    return { request: { ...base, body: null }, parsed: false };
  }
  const { text, contentType } = parsedBody(
    body as Record<string, unknown>,
    req.headers["content-type"],
  );
  const headers = { ...req.headers, "content-type": contentType };
  delete headers["content-length"];
  return { request: { ...base, headers, body: text }, parsed: true };
}
