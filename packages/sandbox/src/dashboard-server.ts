import { readFile } from "node:fs/promises";
import type http from "node:http";
import type { EventFeed, SandboxEvent } from "./event-feed.js";

/** Where the dashboard's page lives; its API is below it, at `api/`. */
export const DASHBOARD_PATH = "/dashboard/";
export const DASHBOARD_API_PATH = "/dashboard/api/";

// The page, its scripts (ES modules, imported by app.js) and its style ship as plain files
// next to src/ and dist/ (no build). Only the files named here are served: a request names one
// of them exactly, so no path reaches outside dashboard/.
const DASHBOARD_FILES = [
  "index.html",
  "app.css",
  "app.js",
  "api.js",
  "attempt-log.js",
  "dom.js",
  "live-feed.js",
  "pull-status.js",
  "send-form.js",
  "webhook-facts.js",
  "webhook-form.js",
  "webhook-list.js",
];
const CONTENT_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  css: "text/css; charset=utf-8",
  // Module scripts must come with a JavaScript type (and nosniff is set below).
  js: "text/javascript; charset=utf-8",
};
const ASSETS = new Map<string, { file: string; type: string }>(
  DASHBOARD_FILES.map((file) => [
    file,
    { file, type: CONTENT_TYPES[file.slice(file.lastIndexOf(".") + 1)] as string },
  ]),
);
ASSETS.set("", { file: "index.html", type: "text/html; charset=utf-8" });
const ASSET_DIR = new URL("../dashboard/", import.meta.url);
const cache = new Map<string, Buffer>();

/**
 * The headers of the dashboard's files (and of `reportkit insights`'s page): scripts and styles
 * from the page's own origin only (no inline script), no framing, no referrer, no sniffing.
 */
export const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

/**
 * Serves the dashboard's static files. Returns false for a path that is not one of them.
 * The page holds no data: it reads everything through the dashboard API with its key.
 */
export async function serveDashboardAsset(
  pathname: string,
  method: string,
  res: http.ServerResponse,
): Promise<boolean> {
  if (pathname === "/" || pathname === "/dashboard") {
    res.writeHead(302, { location: DASHBOARD_PATH }).end();
    return true;
  }
  // Browsers ask every origin for an icon: no content, rather than a 404 in the log.
  if (pathname === "/favicon.ico") {
    res.writeHead(204, { "cache-control": "max-age=86400" }).end();
    return true;
  }
  if (!pathname.startsWith(DASHBOARD_PATH)) return false;
  const asset = ASSETS.get(pathname.slice(DASHBOARD_PATH.length));
  if (asset === undefined) return false;
  if (method !== "GET" && method !== "HEAD") {
    res.writeHead(405, { allow: "GET, HEAD" }).end();
    return true;
  }
  let content = cache.get(asset.file);
  if (content === undefined) {
    content = await readFile(new URL(asset.file, ASSET_DIR));
    cache.set(asset.file, content);
  }
  res.writeHead(200, {
    "content-type": asset.type,
    "content-length": content.length,
    "cache-control": "no-cache",
    ...SECURITY_HEADERS,
  });
  res.end(method === "HEAD" ? undefined : content);
  return true;
}

/** How often an idle event stream sends a comment, so proxies and browsers keep it open. */
const HEARTBEAT_MS = 15_000;

/**
 * A server-sent event stream: first a `snapshot` event (`snapshot()`), then one event per
 * sandbox event (`render` turns it into a name and data; undefined skips it) until the client
 * goes away. Returns the function that ends it.
 */
export function openEventStream(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  feed: EventFeed,
  snapshot: () => unknown,
  render: (event: SandboxEvent) => { name: string; data: unknown } | undefined,
): () => void {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, private",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  const write = (name: string, data: unknown) => {
    // JSON has no raw newlines, so one data: line carries the whole event.
    res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  write("snapshot", snapshot());
  const unsubscribe = feed.subscribe((event) => {
    const shown = render(event);
    if (shown !== undefined) write(shown.name, shown.data);
  });
  const heartbeat = setInterval(() => res.write(": keep-alive\n\n"), HEARTBEAT_MS);
  heartbeat.unref();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    unsubscribe();
    res.end();
  };
  req.on("close", end);
  res.on("error", end);
  return end;
}
