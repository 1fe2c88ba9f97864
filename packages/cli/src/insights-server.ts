// `reportkit insights`'s page: a server on 127.0.0.1 only, with the sandbox dashboard's guards
// (a Host check against DNS rebinding, no CORS, the dashboard's Content-Security-Policy with no
// inline script, a random per-run key in the printed URL's #key= that the page sends with each
// request), serving the page's files, Chart.js from the CLI's own dependency (no CDN), and one
// API: the insights of a range as JSON.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { readFile } from "node:fs/promises";
import http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Insights, InsightsQuery } from "@reportkit/postgres/insights";
import { hostCheck, SECURITY_HEADERS } from "@reportkit/sandbox";
import { CliError, type CliIo } from "./io.js";

/** The header the page sends its key in. */
export const KEY_HEADER = "x-reportkit-insights-key";
/** Where the page asks for the insights. */
export const API_PATH = "/api/insights";
const FILTERS = ["provider", "region", "custom", "custom1", "custom2"] as const;
const LOOPBACK = "127.0.0.1";

const require = createRequire(import.meta.url);
/** A file of the sandbox dashboard's, which the page shares (its stylesheet, its DOM helpers). */
const dashboardFile = (name: string) =>
  join(dirname(require.resolve("@reportkit/sandbox/package.json")), "dashboard", name);
const PAGE_DIR = fileURLToPath(new URL("../insights/", import.meta.url));
/** The page's files: its own, the sandbox dashboard's stylesheet and DOM helpers, and Chart.js. */
const FILES: Record<string, { path: () => string; type: string }> = {
  "/": { path: () => join(PAGE_DIR, "index.html"), type: "text/html; charset=utf-8" },
  "/insights.css": { path: () => join(PAGE_DIR, "insights.css"), type: "text/css; charset=utf-8" },
  "/insights.js": {
    path: () => join(PAGE_DIR, "insights.js"),
    type: "text/javascript; charset=utf-8",
  },
  "/insights-charts.js": {
    path: () => join(PAGE_DIR, "insights-charts.js"),
    type: "text/javascript; charset=utf-8",
  },
  "/app.css": { path: () => dashboardFile("app.css"), type: "text/css; charset=utf-8" },
  "/dom.js": { path: () => dashboardFile("dom.js"), type: "text/javascript; charset=utf-8" },
  "/chart.umd.min.js": {
    // chart.js exports no path to its UMD build: it is beside the file its main entry names.
    path: () => join(dirname(require.resolve("chart.js")), "chart.umd.min.js"),
    type: "text/javascript; charset=utf-8",
  },
};

export interface InsightsServerOptions {
  /** 0: any free port. */
  port: number;
  /** The range and filters the page opens with (the command's flags). */
  query: InsightsQuery;
  read: (query: InsightsQuery) => Promise<Insights>;
  /** Hides the database's password in an error the page is sent. */
  redact: (text: string) => string;
}

export interface InsightsServer {
  /** The page's address with its key: http://127.0.0.1:<port>/#key=… */
  readonly url: string;
  close(): Promise<void>;
}

/** Starts the page's server on 127.0.0.1. */
export async function startInsightsServer(options: InsightsServerOptions): Promise<InsightsServer> {
  const key = Buffer.from(randomBytes(18).toString("base64url"));
  let port = options.port;
  const hostAllowed = hostCheck(LOOPBACK, () => port, []);
  const cache = new Map<string, Buffer>();

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!hostAllowed(req.headers.host)) {
      return json(res, 403, {
        error: `the insights page does not answer for Host ${JSON.stringify(String(req.headers.host).slice(0, 100))} (a page on another name could read it: DNS rebinding); open http://127.0.0.1:${port}/`,
      });
    }
    const url = new URL(req.url ?? "/", "http://insights");
    const method = req.method ?? "GET";
    if (method !== "GET" && method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    if (url.pathname === "/favicon.ico") {
      res.writeHead(204, { "cache-control": "max-age=86400" }).end();
      return;
    }
    if (url.pathname === API_PATH) {
      const given = req.headers[KEY_HEADER];
      const bytes = Buffer.from(typeof given === "string" ? given : "");
      if (bytes.length !== key.length || !timingSafeEqual(bytes, key)) {
        return json(res, 401, {
          error: "open the page at the URL reportkit insights printed: it carries the key",
        });
      }
      let query: InsightsQuery;
      try {
        query = queryOf(url.searchParams, options.query);
        return json(res, 200, await options.read(query));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return json(res, error instanceof TypeError ? 400 : 503, {
          error: options.redact(message),
        });
      }
    }
    const file = FILES[url.pathname];
    if (file === undefined)
      return json(res, 404, { error: `no ${url.pathname.slice(0, 100)} here` });
    let content = cache.get(url.pathname);
    if (content === undefined) {
      content = await readFile(file.path());
      cache.set(url.pathname, content);
    }
    res.writeHead(200, {
      "content-type": file.type,
      "content-length": content.length,
      "cache-control": "no-cache",
      ...SECURITY_HEADERS,
    });
    res.end(method === "HEAD" ? undefined : content);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) json(res, 500, { error: "the page's server failed" });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, LOOPBACK, () => {
      server.off("error", reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://${LOOPBACK}:${port}/#key=${key.toString()}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Serves the page until the user stops the command (Ctrl-C). */
export async function serveInsights(
  options: InsightsServerOptions & { io: CliIo; address: string },
): Promise<void> {
  const { io } = options;
  let server: InsightsServer;
  try {
    server = await startInsightsServer(options);
  } catch (error) {
    if ((error as { code?: unknown }).code === "EADDRINUSE") {
      throw new CliError(
        `port ${options.port} on ${LOOPBACK} is in use; pick another with --port.`,
      );
    }
    throw error;
  }
  io.stdout(
    [
      `reportkit insights on ${server.url}`,
      `  ledger   ${options.address} (read-only)`,
      "  open the URL above (its #key= lets the page read the insights). Ctrl-C stops.",
      "",
    ].join("\n"),
  );
  const signal = await io.stopSignal();
  io.stdout(`${signal}: stopping\n`);
  await server.close();
}

/**
 * The query a page's request asks for: its range and filters (an empty filter: none), the
 * command's zone; the command's own query when the request names no range.
 */
function queryOf(params: URLSearchParams, opened: InsightsQuery): InsightsQuery {
  if (!params.has("from") && !params.has("to")) return opened;
  const query: InsightsQuery = {
    from: params.get("from") ?? opened.from,
    to: params.get("to") ?? opened.to,
    timeZone: opened.timeZone,
  };
  for (const name of FILTERS) {
    const value = params.get(name);
    if (value !== null && value !== "") query[name] = value;
  }
  return query;
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  });
  res.end(text);
}
