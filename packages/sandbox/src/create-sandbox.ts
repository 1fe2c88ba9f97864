import { timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { PROVIDER_TIME_ZONE } from "@reportkit/wire";
import type { ComposedTemplate } from "./composed.js";
import { type CallInput, type Dispatched, Dispatcher, type SmsInput } from "./dispatch.js";
import { FieldErrors } from "./field-errors.js";
import { fail, type JsonReply } from "./laravel.js";
import { type ApiRequest, managementRoute } from "./management-api.js";
import { createPusher, type PushAttempt, resolvePusherOptions } from "./pusher.js";
import { readRequestBody } from "./read-request-body.js";
import {
  PAYLOAD_STYLES,
  type PayloadStyle,
  type SandboxCallPayload,
  type SandboxDeliveryPayload,
} from "./reports.js";
import { composedResource, registerComposed, sandboxRoute } from "./sandbox-api.js";
import { checkTimeZone } from "./wall-clock.js";
import { WebhookStore } from "./webhook-store.js";

export interface SandboxOptions {
  /** The management API's access token: requests must send `Authorization: Bearer <token>`. */
  token: string;
  /** Default 0: any free port (read it from `baseUrl`). */
  port?: number;
  /** Default "127.0.0.1". */
  host?: string;
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
  const timeZone = options.timeZone ?? PROVIDER_TIME_ZONE;
  checkTimeZone(timeZone);
  const pushing = resolvePusherOptions(options, "reportkit sandbox");
  const payloads = options.payloads ?? "documented";
  if (!PAYLOAD_STYLES.includes(payloads)) {
    throw new TypeError(
      `reportkit sandbox: \`payloads\` must be "documented" or "complete", got ${JSON.stringify(payloads)}.`,
    );
  }

  const store = new WebhookStore();
  const pusher = createPusher({ ...pushing, onAttempt: options.onAttempt });
  const dispatcher = new Dispatcher(store, pusher, timeZone, payloads);
  const expected = Buffer.from(`Bearer ${token}`);
  const state = { store, dispatcher, attempts: () => pusher.attempts };

  const server = http.createServer((req, res) => {
    handle(req).then(
      (reply) => send(res, reply),
      () => send(res, fail(500, "Server Error")),
    );
  });

  async function handle(req: http.IncomingMessage): Promise<JsonReply> {
    const url = new URL(req.url ?? "/", "http://sandbox");
    if (!url.pathname.startsWith(BASE_PATH)) {
      return fail(404, `The route ${url.pathname.slice(1)} could not be found.`);
    }
    const method = (req.method ?? "GET").toUpperCase();
    const hostHeader = req.headers.host ?? `${formatHost(host)}:${actualPort()}`;
    const request: ApiRequest = {
      method,
      path: url.pathname.slice(BASE_PATH.length).replace(/\/+$/, ""),
      query: url.searchParams,
      body: {},
      baseUrl: `http://${hostHeader}${BASE_PATH}`,
    };
    const route = managementRoute(store, request) ?? sandboxRoute(state, request);
    if (route === undefined) return fail(404, `The route ${request.path} could not be found.`);
    if (typeof route !== "function") return route;
    if (!authorized(req.headers.authorization)) {
      return fail(401, "Unauthenticated.", undefined, { "www-authenticate": "Bearer" });
    }
    const body = await readRequestBody(req);
    if (!body.ok) return body.reply;
    request.body = body.value;
    try {
      return route(request);
    } catch (error) {
      if (error instanceof FieldErrors) {
        return fail(422, error.message, error.errors);
      }
      throw error;
    }
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

  const baseUrl = `http://${formatHost(host)}:${actualPort()}${BASE_PATH}`;
  let closing: Promise<void> | undefined;

  return {
    baseUrl,
    port: actualPort(),
    sendSms: (input) => dispatcher.sendSms(input),
    makeCall: (input) => dispatcher.makeCall(input),
    createComposedWebhook: (input) =>
      composedResource(registerComposed(store, input as unknown as Record<string, unknown>)),
    attempts: () => [...pusher.attempts],
    settled: () => dispatcher.settled(),
    close() {
      closing ??= new Promise<void>((resolve) => {
        pusher.close();
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
