import type http from "node:http";
import { eventStreamMessage, eventStreamSnapshot } from "./dashboard-event-views.js";
import { DASHBOARD_API_PATH, openEventStream, serveDashboardAsset } from "./dashboard-server.js";
import type { EventFeed } from "./event-feed.js";
import { FieldErrors } from "./field-errors.js";
import { formatHost } from "./format-host.js";
import { fail, type JsonReply } from "./laravel.js";
import { type ApiRequest, managementRoute, notAllowed } from "./management-api.js";
import { pullRoute } from "./pull-api.js";
import { readRequestBody } from "./read-request-body.js";
import {
  dashboardWriteRefusal,
  FailedAuthLimiter,
  hostCheck,
  hostRefused,
} from "./request-guard.js";
import { type SandboxState, sandboxRoute } from "./sandbox-api.js";
import { type SandboxCredentials, unauthenticated } from "./sandbox-credentials.js";
import { subscriptionsRoute } from "./subscriptions-api.js";
import { RECORDINGS_PATH } from "./voice-log.js";
import { voiceLogsRoute } from "./voice-logs-api.js";

/** Where the management API lives, as on the provider. */
export const API_BASE_PATH = "/api/v2/";

export interface RequestHandlerContext {
  state: SandboxState;
  feed: EventFeed;
  credentials: SandboxCredentials;
  /** The address the server listens on. */
  host: string;
  /** The port it listens on (known once it listens). */
  port: () => number;
  allowedHosts: readonly string[];
  /** The open event streams, each by the function that ends it: emptied on close. */
  streams: Set<() => void>;
}

/**
 * The sandbox's HTTP listener: guards each request (Host, credential, failed-credential limit,
 * cross-site dashboard writes), routes it to the management API, the sandbox endpoints, the
 * dashboard's event stream or its files, or the recording host, and sends the JSON reply
 * (500 if a route throws).
 */
export function createRequestHandler(
  context: RequestHandlerContext,
): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  const { state, feed, credentials, host, port, streams } = context;
  const hostAllowed = hostCheck(host, port, context.allowedHosts);
  const limiter = new FailedAuthLimiter();

  async function handle(
    req: http.IncomingMessage,
    res: http.ServerResponse,
  ): Promise<JsonReply | "streamed"> {
    if (!hostAllowed(req.headers.host)) return hostRefused(req.headers.host ?? "");
    const url = new URL(req.url ?? "/", "http://sandbox");
    // Repeated slashes are one (as nginx's merge_slashes does): "$BASE/sandbox/sms" with a
    // base ending in "/" still reaches sandbox/sms.
    const pathname = url.pathname.replace(/\/{2,}/g, "/");
    const method = (req.method ?? "GET").toUpperCase();
    const dashboardApi = pathname.startsWith(DASHBOARD_API_PATH);
    if (pathname.startsWith(RECORDINGS_PATH)) {
      state.recordingFiles.serve(req, res, url);
      return "streamed";
    }
    if (!dashboardApi && !pathname.startsWith(API_BASE_PATH)) {
      if (await serveDashboardAsset(pathname, method, res)) return "streamed";
      return fail(404, `The route ${pathname.slice(1)} could not be found.`);
    }
    const basePath = dashboardApi ? DASHBOARD_API_PATH : API_BASE_PATH;
    const hostHeader = req.headers.host ?? `${formatHost(host)}:${port()}`;
    const request: ApiRequest = {
      method,
      path: pathname.slice(basePath.length).replace(/\/+$/, ""),
      query: url.searchParams,
      body: {},
      baseUrl: `http://${hostHeader}${basePath}`,
    };
    const address = req.socket.remoteAddress ?? "";
    // The credential, unless this address failed too often lately. The dashboard key comes in
    // its header; in the query only for the event stream (EventSource cannot set headers).
    const authenticate = (queryKey: boolean): JsonReply | undefined => {
      const limited = limiter.check(address);
      if (limited !== undefined) return limited;
      const given = req.headers["x-reportkit-dashboard-key"];
      const ok = dashboardApi
        ? credentials.dashboardAuthorized(
            typeof given === "string" ? given : queryKey ? url.searchParams.get("key") : null,
          )
        : credentials.authorized(req.headers.authorization);
      if (ok) return undefined;
      limiter.failed(address);
      return unauthenticated(dashboardApi);
    };
    if (request.path === "sandbox/events") {
      if (method !== "GET") return notAllowed(method, request.path, "GET");
      const refused = authenticate(true);
      if (refused !== undefined) return refused;
      const end = openEventStream(
        req,
        res,
        feed,
        () => eventStreamSnapshot(state, `http://${formatHost(host)}:${port()}${API_BASE_PATH}`),
        (event) => eventStreamMessage(state, event),
      );
      streams.add(end);
      req.on("close", () => streams.delete(end));
      return "streamed";
    }
    const route =
      managementRoute(state.store, request, state.challenge) ??
      sandboxRoute(state, request) ??
      pullRoute(state.messages, request) ??
      voiceLogsRoute(state.voice, request) ??
      subscriptionsRoute(state.subscriptions, request);
    if (route === undefined) return fail(404, `The route ${request.path} could not be found.`);
    if (typeof route !== "function") return route;
    const refused = authenticate(false);
    if (refused !== undefined) return refused;
    if (dashboardApi && method !== "GET" && method !== "HEAD") {
      const forged = dashboardWriteRefusal(req);
      if (forged !== undefined) return forged;
    }
    const body = await readRequestBody(req);
    if (!body.ok) return body.reply;
    request.body = body.value;
    try {
      return await route(request);
    } catch (error) {
      if (error instanceof FieldErrors) {
        return fail(422, error.message, error.errors);
      }
      throw error;
    }
  }

  return (req, res) => {
    handle(req, res).then(
      (reply) => {
        if (reply !== "streamed") send(res, reply);
      },
      () => {
        if (!res.headersSent) send(res, fail(500, "Server Error"));
        else res.destroy();
      },
    );
  };
}

function send(res: http.ServerResponse, reply: JsonReply): void {
  const body = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    "content-type": "application/json",
    "cache-control": "no-cache, private",
    ...reply.headers,
  });
  res.end(body);
}
