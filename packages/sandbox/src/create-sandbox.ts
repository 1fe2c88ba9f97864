import http from "node:http";
import type { AddressInfo } from "node:net";
import { DASHBOARD_PATH } from "./dashboard-server.js";
import { formatHost } from "./format-host.js";
import type { PushAttempt } from "./pusher.js";
import type { RecordingRequest } from "./recording-files.js";
import type { ComposedTemplate } from "./render-composed.js";
import type {
  SandboxCallPayload,
  SandboxDeliveryPayload,
  SandboxOptOutPayload,
} from "./reports.js";
import { composedResource, registerComposed } from "./sandbox-api.js";
import { SandboxCredentials } from "./sandbox-credentials.js";
import { resolveSandboxOptions, type SandboxOptions } from "./sandbox-options.js";
import { API_BASE_PATH, createRequestHandler } from "./sandbox-request-handler.js";
import { createSandboxState } from "./sandbox-state.js";
import type { CallInput, Dispatched, OptOutInput, SmsInput } from "./simulate-sms-and-calls.js";

export interface ComposedWebhookInput extends ComposedTemplate {
  name: string;
  status?: 0 | 1;
  /**
   * The webhook's secret: sent as `Authorization: Bearer <secret>` with every push (unless the
   * template sets its own Authorization header).
   */
  secret?: string;
  /** The webhook's token (the validation key). Kept; a composed webhook is not verified. */
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
  /** Simulates a number opting out (`sms:unsubscription`): the opt-out is pushed to the webhook. */
  optOut(input: OptOutInput): Dispatched<SandboxOptOutPayload>;
  /** Registers a composed webhook; pass its `id` as the webhookId of sendSms/makeCall. */
  createComposedWebhook(input: ComposedWebhookInput): SandboxComposedWebhook;
  /** Every push attempt so far, oldest first. */
  attempts(): PushAttempt[];
  /**
   * Every request its recording host received (the last 1000), oldest first, with its headers:
   * what a downloader sent the files' host (it needs no credential: the URL is presigned).
   */
  recordingRequests(): RecordingRequest[];
  /** Resolves once every report sent so far is delivered, dropped or skipped. */
  settled(): Promise<void>;
  /** Stops the server and cancels every scheduled retry. */
  close(): Promise<void>;
}

/**
 * The provider on localhost: the management API exactly as documented, sandbox-only endpoints
 * to send messages and make calls, and a pusher with the provider's retry behaviour.
 *
 * @example
 * const sandbox = await createSandbox({ token: "dev-token", retryIntervalMs: 2_000 });
 * const client = createClient({ baseUrl: sandbox.baseUrl, token: "dev-token" });
 * // The secret is the bearer of every push; a token is sent once, to verify the webhook.
 * const hook = await client.webhooks.create({ name: "local", uri: "http://127.0.0.1:3000/reports", secret: "s3cret" });
 * sandbox.sendSms({ webhookId: hook.id });
 */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const resolved = resolveSandboxOptions(options);
  const { host, port, fallbackSecret } = resolved;
  // Known once the server listens; a call is only simulated after that.
  let origin = "";
  const { state, feed, close } = createSandboxState(
    resolved,
    (attempt) => options.onAttempt?.(attempt),
    (verification) => options.onVerification?.(verification),
    () => origin,
  );
  const { store, dispatcher, pusher } = state;
  const credentials = new SandboxCredentials(resolved.token);
  const streams = new Set<() => void>();
  const actualPort = (): number => (server.address() as AddressInfo).port;
  const server = http.createServer(
    createRequestHandler({
      state,
      feed,
      credentials,
      host,
      port: actualPort,
      allowedHosts: resolved.allowedHosts,
      streams,
    }),
  );

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });

  origin = `http://${formatHost(host)}:${actualPort()}`;
  const baseUrl = `${origin}${API_BASE_PATH}`;
  // Listening on every address: a browser opens the loopback one.
  const browserHost = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  const dashboardUrl = `http://${formatHost(browserHost)}:${actualPort()}${DASHBOARD_PATH}#key=${credentials.dashboardKey}`;
  let closing: Promise<void> | undefined;

  return {
    baseUrl,
    dashboardUrl,
    port: actualPort(),
    sendSms: (input) => dispatcher.sendSms(input),
    makeCall: (input) => dispatcher.makeCall(input),
    optOut: (input) => dispatcher.optOut(input),
    createComposedWebhook: (input) =>
      composedResource(
        registerComposed(store, input as unknown as Record<string, unknown>),
        fallbackSecret,
      ),
    attempts: () => [...pusher.attempts],
    recordingRequests: () => [...state.recordingFiles.requests],
    settled: () => dispatcher.settled(),
    close() {
      closing ??= new Promise<void>((resolve) => {
        pusher.close();
        close();
        for (const end of streams) end();
        streams.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
