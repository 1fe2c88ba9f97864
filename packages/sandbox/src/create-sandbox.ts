import { randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { PROVIDER_TIME_ZONE } from "@reportkit/wire";
import {
  DASHBOARD_API_PATH,
  DASHBOARD_PATH,
  openEventStream,
  serveDashboardAsset,
} from "./dashboard-server.js";
import { EventFeed, type SandboxEvent } from "./event-feed.js";
import { FieldErrors } from "./field-errors.js";
import { checkTimeZone } from "./format-wall-clock.js";
import { fail, type JsonReply } from "./laravel.js";
import { type ApiRequest, managementRoute, notAllowed } from "./management-api.js";
import { credentialsOf } from "./mask.js";
import { createPusher, type PushAttempt, resolvePusherOptions } from "./pusher.js";
import { readRequestBody } from "./read-request-body.js";
import type { ComposedTemplate } from "./render-composed.js";
import {
  PAYLOAD_STYLES,
  type PayloadStyle,
  type SandboxCallPayload,
  type SandboxDeliveryPayload,
} from "./reports.js";
import {
  dashboardWriteRefusal,
  FailedAuthLimiter,
  hostCheck,
  hostRefused,
} from "./request-guard.js";
import {
  composedResource,
  pushAttemptJson,
  registerComposed,
  type SandboxState,
  sandboxRoute,
  shownWebhook,
} from "./sandbox-api.js";
import {
  type CallInput,
  type Dispatched,
  Dispatcher,
  type SmsInput,
} from "./simulate-sms-and-calls.js";
import { sendChallenge } from "./verification-challenge.js";
import { bearerOf, WebhookStore } from "./webhook-store.js";

export interface SandboxOptions {
  /** The management API's access token: requests must send `Authorization: Bearer <token>`. */
  token: string;
  /** Default 0: any free port (read it from `baseUrl`). */
  port?: number;
  /** Default "127.0.0.1". */
  host?: string;
  /**
   * Host names (or `name:port`) the sandbox answers besides localhost, 127.0.0.1 and [::1] at
   * its port (and the address given as `host`). Any other Host gets 403: a page on a name
   * rebound to 127.0.0.1 (DNS rebinding) cannot drive the sandbox. Default none.
   */
  allowedHosts?: readonly string[];
  /** Wait between push attempts, in ms. Default 1 800 000 (30 minutes), as the provider. */
  retryIntervalMs?: number;
  /** Retries after a failed push. Default 3, as the provider. */
  retries?: number;
  /** How long a push waits for the receiver's status, in ms. Default 10 000. */
  timeoutMs?: number;
  /**
   * Zone of the reports' wall-clock fields. Default `PROVIDER_TIME_ZONE` ("Asia/Kolkata", the
   * platform is in India), the zone a receiver reads them in by default.
   */
  timeZone?: string;
  /** Told of every push attempt as it completes. */
  onAttempt?: (attempt: PushAttempt) => void;
  /**
   * The shape of the pushed reports. Default "documented": as the provider's documentation
   * shows them (no unix fields in a delivery report, no delivery time on an undelivered
   * message, no `webhook_id` in a call report, a trailing comma before the closing brace).
   * "complete": every documented field, as strict JSON.
   */
  payloads?: PayloadStyle;
  /**
   * The bearer for pushes to a webhook created with neither `token` nor `secret`. Default none
   * (such pushes carry no Authorization). `reportkit sandbox` passes the `REPORTKIT_TOKEN` of
   * its environment, the variable the receivers read, so one token works end to end.
   */
  webhookToken?: string;
}

export interface ComposedWebhookInput extends ComposedTemplate {
  name: string;
  status?: 0 | 1;
  secret?: string;
  /** Sent as the bearer credential (unless the template sets its own Authorization header). */
  token?: string;
}

export type SandboxComposedWebhook = ReturnType<typeof composedResource>;

export interface Sandbox {
  /** The management API's base, e.g. http://127.0.0.1:4010/api/v2/. */
  readonly baseUrl: string;
  /**
   * The dashboard, live in a browser: webhooks, every push attempt with its request and reply,
   * and buttons to send, resend and retry. Its `#key=` is a random per-run key (not the API
   * token) that the page sends with each request, so other sites cannot drive the sandbox.
   */
  readonly dashboardUrl: string;
  readonly port: number;
  /** Simulates an SMS sent with `webhook_id`: its delivery report is pushed to the webhook. */
  sendSms(input: SmsInput): Dispatched<SandboxDeliveryPayload>;
  /** Simulates a call made with `webhook_id`: its call report is pushed to the webhook. */
  makeCall(input: CallInput): Dispatched<SandboxCallPayload>;
  /** Registers a composed webhook; pass its `id` as the webhookId of sendSms/makeCall. */
  createComposedWebhook(input: ComposedWebhookInput): SandboxComposedWebhook;
  /** Every push attempt so far, oldest first. */
  attempts(): PushAttempt[];
  /** Resolves once every report sent so far is delivered, dropped or skipped. */
  settled(): Promise<void>;
  /** Stops the server and cancels every scheduled retry. */
  close(): Promise<void>;
}

const BASE_PATH = "/api/v2/";
/** How many of the latest attempts an event stream's snapshot carries. */
const SNAPSHOT_ATTEMPTS = 500;

/**
 * The provider on localhost: the management API exactly as documented, sandbox-only endpoints
 * to send messages and make calls, and a pusher with the provider's retry behaviour.
 *
 * @example
 * const sandbox = await createSandbox({ token: "dev-token", retryIntervalMs: 2_000 });
 * const client = createClient({ baseUrl: sandbox.baseUrl, token: "dev-token" });
 * const hook = await client.webhooks.create({ name: "local", uri: "http://127.0.0.1:3000/reports" });
 * sandbox.sendSms({ webhookId: hook.id });
 */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("reportkit sandbox: createSandbox(options) needs { token }.");
  }
  const { token } = options;
  if (typeof token !== "string" || token.trim() === "" || /[\s]/.test(token)) {
    throw new TypeError(
      "reportkit sandbox: `token` is required: the access token clients must send as Bearer (one word, no spaces).",
    );
  }
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 0;
  if (!Number.isSafeInteger(port) || port < 0 || port > 65_535) {
    throw new TypeError(`reportkit sandbox: \`port\` must be 0 to 65535, got ${String(port)}.`);
  }
  const allowedHosts = options.allowedHosts ?? [];
  if (
    !Array.isArray(allowedHosts) ||
    !allowedHosts.every((h) => typeof h === "string" && /^[^\s/?#@]+$/.test(h))
  ) {
    throw new TypeError(
      'reportkit sandbox: `allowedHosts` must be a list of host names, such as ["sandbox.test"] or ["sandbox.test:4010"].',
    );
  }
  const timeZone = options.timeZone ?? PROVIDER_TIME_ZONE;
  checkTimeZone(timeZone);
  const pushing = resolvePusherOptions(options, "reportkit sandbox");
  const payloads = options.payloads ?? "documented";
  if (!PAYLOAD_STYLES.includes(payloads)) {
    throw new TypeError(
      `reportkit sandbox: \`payloads\` must be "documented" or "complete", got ${JSON.stringify(payloads)}.`,
    );
  }

  const feed = new EventFeed();
  // Every credential a webhook ever had (token, secret, configured header values, URI
  // userinfo), kept after an edit or delete: the log still shows its old attempts, and must
  // still mask them.
  const secrets = new Map<string, Set<string>>();
  const store = new WebhookStore((webhook) => {
    const known = secrets.get(webhook.id) ?? new Set<string>();
    for (const value of credentialsOf(webhook)) known.add(value);
    secrets.set(webhook.id, known);
    feed.emit({ type: "webhooks" });
  });
  const pusher = createPusher({
    ...pushing,
    onAttempt(attempt) {
      feed.emit({ type: "attempt", attempt });
      options.onAttempt?.(attempt);
    },
  });
  const { webhookToken } = options;
  if (webhookToken !== undefined && (typeof webhookToken !== "string" || /\s/.test(webhookToken))) {
    throw new TypeError(
      "reportkit sandbox: `webhookToken` must be a token (one word, no spaces): the bearer of webhooks created without token or secret, as the receiver's REPORTKIT_TOKEN.",
    );
  }
  const fallbackToken = webhookToken === "" ? undefined : webhookToken;
  const dispatcher = new Dispatcher(store, pusher, timeZone, payloads, fallbackToken);
  const expected = Buffer.from(`Bearer ${token}`);
  const dashboardKey = Buffer.from(randomBytes(18).toString("base64url"));
  const state: SandboxState = {
    store,
    dispatcher,
    pusher,
    secretsOf: (id) => [
      ...(id === null ? [] : (secrets.get(id) ?? [])),
      ...(fallbackToken === undefined ? [] : [fallbackToken]),
    ],
    fallbackToken,
    async challenge(webhook) {
      const outcome =
        webhook.composed === null
          ? await sendChallenge(webhook.uri, bearerOf(webhook, fallbackToken), pushing.timeoutMs)
          : {
              sent: false,
              passed: false,
              url: null,
              statusCode: null,
              reason:
                "not sent: a composed webhook's URL is a template (the challenge goes to standard webhooks)",
              at: new Date(),
            };
      store.challenged(webhook.id, outcome);
      return outcome;
    },
  };
  const streams = new Set<() => void>();
  const hostAllowed = hostCheck(host, actualPort, allowedHosts);
  const limiter = new FailedAuthLimiter();

  const server = http.createServer((req, res) => {
    handle(req, res).then(
      (reply) => {
        if (reply !== "streamed") send(res, reply);
      },
      () => {
        if (!res.headersSent) send(res, fail(500, "Server Error"));
        else res.destroy();
      },
    );
  });

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
    if (!dashboardApi && !pathname.startsWith(BASE_PATH)) {
      if (await serveDashboardAsset(pathname, method, res)) return "streamed";
      return fail(404, `The route ${pathname.slice(1)} could not be found.`);
    }
    const basePath = dashboardApi ? DASHBOARD_API_PATH : BASE_PATH;
    const hostHeader = req.headers.host ?? `${formatHost(host)}:${actualPort()}`;
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
        ? dashboardAuthorized(
            typeof given === "string" ? given : queryKey ? url.searchParams.get("key") : null,
          )
        : authorized(req.headers.authorization);
      if (ok) return undefined;
      limiter.failed(address);
      return unauthenticated(dashboardApi);
    };
    if (request.path === "sandbox/events") {
      if (method !== "GET") return notAllowed(method, request.path, "GET");
      const refused = authenticate(true);
      if (refused !== undefined) return refused;
      const end = openEventStream(req, res, feed, snapshot, render);
      streams.add(end);
      req.on("close", () => streams.delete(end));
      return "streamed";
    }
    const route = managementRoute(store, request, state.challenge) ?? sandboxRoute(state, request);
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

  function snapshot() {
    return {
      base_url: `http://${formatHost(host)}:${actualPort()}${BASE_PATH}`,
      webhooks: store.list().map((w) => shownWebhook(w, fallbackToken)),
      attempts: pusher.attempts
        .slice(-SNAPSHOT_ATTEMPTS)
        .map((a) => pushAttemptJson(a, state.secretsOf(a.webhookId))),
    };
  }

  function render(event: SandboxEvent) {
    if (event.type === "webhooks") {
      return { name: "webhooks", data: store.list().map((w) => shownWebhook(w, fallbackToken)) };
    }
    const { attempt } = event;
    return { name: "attempt", data: pushAttemptJson(attempt, state.secretsOf(attempt.webhookId)) };
  }

  function dashboardAuthorized(given: string | null) {
    if (given === null) return false;
    const bytes = Buffer.from(given);
    return bytes.length === dashboardKey.length && timingSafeEqual(bytes, dashboardKey);
  }

  function unauthenticated(dashboardApi: boolean): JsonReply {
    return dashboardApi
      ? fail(
          401,
          "Unauthenticated: open the dashboard URL the sandbox printed (it carries the key).",
        )
      : fail(401, "Unauthenticated.", undefined, { "www-authenticate": "Bearer" });
  }

  function authorized(header: string | undefined): boolean {
    if (header === undefined) return false;
    const given = Buffer.from(header.trim().replace(/^bearer\s+/i, "Bearer "));
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  function actualPort(): number {
    return (server.address() as AddressInfo).port;
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });

  const origin = `http://${formatHost(host)}:${actualPort()}`;
  const baseUrl = `${origin}${BASE_PATH}`;
  // Listening on every address: a browser opens the loopback one.
  const browserHost = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  const dashboardUrl = `http://${formatHost(browserHost)}:${actualPort()}${DASHBOARD_PATH}#key=${dashboardKey.toString()}`;
  let closing: Promise<void> | undefined;

  return {
    baseUrl,
    dashboardUrl,
    port: actualPort(),
    sendSms: (input) => dispatcher.sendSms(input),
    makeCall: (input) => dispatcher.makeCall(input),
    createComposedWebhook: (input) =>
      composedResource(
        registerComposed(store, input as unknown as Record<string, unknown>),
        fallbackToken,
      ),
    attempts: () => [...pusher.attempts],
    settled: () => dispatcher.settled(),
    close() {
      closing ??= new Promise<void>((resolve) => {
        pusher.close();
        for (const end of streams) end();
        streams.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function formatHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
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
