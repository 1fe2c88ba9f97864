import { safeDecode } from "@reportkit/wire";
import { FieldErrors } from "./field-errors.js";
import { fail, type JsonReply, ok, webhookResource } from "./laravel.js";
import {
  type ApiRequest,
  type Challenger,
  notAllowed,
  notFound,
  webhookFields,
} from "./management-api.js";
import { maskRequest, maskText, maskUrl } from "./mask.js";
import type { MessageLog } from "./message-log.js";
import {
  NOTIFICATION_EVENTS,
  type NotificationEvent,
  notificationOverrides,
} from "./notifications.js";
import { pushNotification } from "./push-notification.js";
import type { PushAttempt, Pusher } from "./pusher.js";
import type { RecordingFiles } from "./recording-files.js";
import { resolveTemplate } from "./render-composed.js";
import { sentHeaders } from "./send-once.js";
import type { Dispatched, Dispatcher } from "./simulate-sms-and-calls.js";
import type { SubscriptionStore } from "./subscriptions-api.js";
import { challengeJson } from "./verification-challenge.js";
import type { VoiceLog } from "./voice-log.js";
import { bearerOf, type StoredWebhook, type WebhookStore } from "./webhook-store.js";

/**
 * Sandbox-only endpoints, which the provider does not have (its send-message and make-call
 * endpoints are not documented): simulate a message or a call, register a composed webhook,
 * read the push log. Same base URL, same bearer token.
 */
export interface SandboxState {
  store: WebhookStore;
  dispatcher: Dispatcher;
  pusher: Pusher;
  /** The webhook's secrets and tokens, past ones included: masked wherever an attempt is shown. */
  secretsOf: (webhookId: string | null) => readonly string[];
  /** The bearer of webhooks without a secret: REPORTKIT_SECRET, from the CLI. */
  fallbackSecret: string | undefined;
  challenge: Challenger;
  /** Every simulated message and call, as the pull APIs list them. */
  messages: MessageLog;
  /** Event subscriptions: a send without `webhook_id` goes to the subscribed webhook. */
  subscriptions: SubscriptionStore;
  /** Every simulated call and its recording, as the voice logs list them. */
  voice: VoiceLog;
  /** The recording host: the files at their presigned URLs. */
  recordingFiles: RecordingFiles;
}

export function sandboxRoute(
  state: SandboxState,
  request: ApiRequest,
): ((request: ApiRequest) => JsonReply | Promise<JsonReply>) | JsonReply | undefined {
  const { method, path } = request;
  const only = (allowed: string, handler: (r: ApiRequest) => JsonReply | Promise<JsonReply>) =>
    method === allowed || (allowed === "GET" && method === "HEAD")
      ? handler
      : notAllowed(method, path, allowed === "GET" ? "GET, HEAD" : allowed);
  switch (path) {
    case "sandbox/sms":
      return only("POST", (r) =>
        sendSms(state.dispatcher, subscribed(state, r, "sms:message:status")),
      );
    case "sandbox/calls":
      return only("POST", (r) =>
        makeCall(state.dispatcher, subscribed(state, r, "voice:message:out")),
      );
    case "sandbox/c2c":
      return only("POST", (r) =>
        click2Call(state.dispatcher, subscribed(state, r, "voice:message:out")),
      );
    case "sandbox/notifications":
      return only("POST", (r) => notify(state, r));
    case "sandbox/composed-webhooks":
      return only("POST", (r) => createComposed(state, r));
    case "sandbox/push-attempts":
      return only("GET", (r) => listAttempts(state, r));
  }
  const webhook = /^sandbox\/webhooks\/([^/]+)(\/challenge)?$/.exec(path);
  if (webhook !== null) {
    const id = safeDecode(webhook[1] as string);
    if (webhook[2] === undefined) return only("GET", () => showWebhook(state, id));
    return only("POST", () => challengeWebhook(state, id));
  }
  const action = /^sandbox\/reports\/([^/]+)\/(resend|retry-now)$/.exec(path);
  if (action !== null) {
    const reportId = safeDecode(action[1] as string);
    return only("POST", () =>
      action[2] === "resend" ? resend(state, reportId) : retryNow(state, reportId),
    );
  }
  return undefined;
}

/** The request, its `webhook_id` filled from a subscription to `event` when it has none. */
function subscribed(state: SandboxState, request: ApiRequest, event: string): ApiRequest {
  if (request.body.webhook_id !== undefined && request.body.webhook_id !== "") return request;
  const webhookId = state.subscriptions.webhookFor(event);
  return webhookId === undefined
    ? request
    : { ...request, body: { ...request.body, webhook_id: webhookId } };
}

function resend(state: SandboxState, reportId: string): JsonReply {
  if (!state.dispatcher.knows(reportId))
    return fail(404, `Report ${reportId.slice(0, 64)} not found.`);
  const sent = state.dispatcher.resend(reportId);
  return ok(sent.pushed ? "Queued" : "Not pushed: the webhook is inactive", {
    report_id: reportId,
    webhook_id: sent.webhookId,
    pushed: sent.pushed,
    report: sent.report,
  });
}

function retryNow(state: SandboxState, reportId: string): JsonReply {
  if (!state.dispatcher.knows(reportId))
    return fail(404, `Report ${reportId.slice(0, 64)} not found.`);
  const woken = state.pusher.retryNow(reportId);
  if (woken === 0) {
    return fail(409, `Report ${reportId.slice(0, 64)} is not waiting for a retry.`);
  }
  return ok("Retrying now", { report_id: reportId, retried: woken });
}

function sendSms(dispatcher: Dispatcher, { body }: ApiRequest): JsonReply {
  const sent = dispatcher.sendSms({
    webhookId: body.webhook_id as string,
    mobile: body.mobile as string | undefined,
    status: body.status as string | undefined,
    custom: body.custom as string | undefined,
    custom1: body.custom1 as string | undefined,
    custom2: body.custom2 as string | undefined,
    credits: body.credits as string | undefined,
    units: body.units as number | undefined,
    cid: body.cid as string | undefined,
    message: body.message as string | undefined,
  });
  return ok(sent.pushed ? "Queued" : "Not pushed: the webhook is inactive", {
    report_id: sent.report.id,
    webhook_id: sent.webhookId,
    pushed: sent.pushed,
    report: sent.report,
  });
}

/** What an outbound dial's and a Click2Call's requests share, by the report's own names. */
function callFields(body: ApiRequest["body"]) {
  return {
    webhookId: body.webhook_id as string,
    to: body.to as string | undefined,
    from: body.from as string | undefined,
    bridge: body.bridge as string | undefined,
    status: body.status as string | undefined,
    duration: body.duration as number | undefined,
    recordingUrl: body.recording_url as string | null | undefined,
    mid: body.mid as string | undefined,
    recordingBytes: body.recording_bytes as number | undefined,
  };
}

/** The answer to a simulated call: what the push log knows it by, and the report. */
function callAnswer(sent: Dispatched<object>, extra: Record<string, string> = {}): JsonReply {
  return ok(sent.pushed ? "Queued" : "Not pushed: the webhook is inactive", {
    report_id: sent.reportId,
    ...extra,
    webhook_id: sent.webhookId,
    pushed: sent.pushed,
    report: sent.report,
  });
}

function makeCall(dispatcher: Dispatcher, { body }: ApiRequest): JsonReply {
  return callAnswer(
    dispatcher.makeCall({
      ...callFields(body),
      flowId: body.flow_id as number | undefined,
      source: body.source as string | undefined,
    }),
  );
}

function click2Call(dispatcher: Dispatcher, { body }: ApiRequest): JsonReply {
  const sent = dispatcher.click2Call({
    ...callFields(body),
    status1: body.status1 as string | undefined,
    status2: body.status2 as string | undefined,
    billing: body.billing as number | undefined,
    hangupBy: body.hangup_by as string | undefined,
  });
  // Some brands' Click2Call answers with a `callId`: the push log knows the report by it.
  return callAnswer(sent, { call_id: sent.reportId });
}

function notify(state: SandboxState, { body }: ApiRequest): JsonReply {
  const { event, webhook_id: webhookId, ...fields } = body;
  if (typeof event !== "string" || event === "") {
    throw new FieldErrors({ event: ["The event field is required."] });
  }
  const known = (NOTIFICATION_EVENTS as readonly string[]).includes(event);
  const sent = pushNotification(state, {
    event: event as NotificationEvent,
    ...(webhookId !== undefined && webhookId !== "" && { webhookId: webhookId as string }),
    // An unknown event is refused as such before its fields are looked at.
    ...(known && notificationOverrides(event as NotificationEvent, fields)),
  });
  return ok(sent.pushed ? "Queued" : "Not pushed: the webhook is inactive", {
    report_id: sent.reportId,
    report_type: sent.reportType,
    event,
    webhook_id: sent.webhookId,
    subscription_id: sent.subscription?.id ?? null,
    subscribed: sent.subscription?.created ?? false,
    pushed: sent.pushed,
    report: sent.report,
  });
}

/** Registers a composed webhook: the webhook fields plus its template (url is its uri). */
export function registerComposed(store: WebhookStore, body: Record<string, unknown>) {
  let fields: ReturnType<typeof webhookFields> | undefined;
  let fieldErrors: Record<string, readonly string[]> = {};
  try {
    fields = webhookFields(body, { token: true, uriField: "url" });
  } catch (error) {
    if (!(error instanceof FieldErrors)) throw error;
    fieldErrors = error.errors;
  }
  let template: ReturnType<typeof resolveTemplate> | undefined;
  try {
    // The webhook's own fields are not the template's.
    const { name: _n, status: _s, secret: _c, token: _t, ...templateFields } = body;
    template = resolveTemplate(templateFields);
  } catch (error) {
    if (!(error instanceof FieldErrors)) throw error;
    // The template's url problems are the grammar's, word for word as the receiver gives them.
    fieldErrors = { ...fieldErrors, ...error.errors };
  }
  if (fields === undefined || template === undefined) {
    throw new FieldErrors(fieldErrors);
  }
  return store.create({ ...fields, uri: template.url, composed: template });
}

/**
 * A webhook as the sandbox's own endpoints and the dashboard show it: the resource, which
 * credentials it has (never their values): the secret its pushes carry as the bearer and where
 * it comes from, whether it has a token to be verified with; the last verification, and a
 * composed webhook's template.
 */
export function composedResource(webhook: StoredWebhook, fallbackSecret?: string) {
  const composed = webhook.composed;
  const bearer = bearerOf(webhook, fallbackSecret);
  return {
    ...webhookResource(webhook, "string"),
    bearer: { set: bearer !== null, from: bearer?.from ?? null },
    token: { set: webhook.token !== null },
    challenge: webhook.challenge === null ? null : challengeJson(webhook.challenge),
    composed:
      composed === null
        ? null
        : {
            type: composed.type,
            method: composed.method,
            url: composed.url,
            format: composed.format,
            body: composed.body ?? null,
            // Header values may hold credentials: names only.
            headers: Object.keys(composed.headers ?? {}),
          },
  };
}

/**
 * A webhook as the dashboard shows it: the composed resource with the URI's userinfo masked
 * (the management API itself serves the URI as stored, as the provider does).
 */
export function shownWebhook(webhook: StoredWebhook, fallbackSecret: string | undefined) {
  const resource = composedResource(webhook, fallbackSecret);
  const { composed } = resource;
  return {
    ...resource,
    uri: maskUrl(resource.uri),
    composed: composed === null ? null : { ...composed, url: maskUrl(composed.url) },
  };
}

function createComposed(state: SandboxState, { body }: ApiRequest): JsonReply {
  return ok(
    "Created successfully",
    composedResource(registerComposed(state.store, body), state.fallbackSecret),
  );
}

function showWebhook(state: SandboxState, id: string): JsonReply {
  const webhook = state.store.get(id);
  if (webhook === undefined) return notFound(id);
  return ok("OK", composedResource(webhook, state.fallbackSecret));
}

async function challengeWebhook(state: SandboxState, id: string): Promise<JsonReply> {
  const webhook = state.store.get(id);
  if (webhook === undefined) return notFound(id);
  const outcome = await state.challenge(webhook);
  return ok(outcome.passed ? "Challenge passed" : "Challenge failed", challengeJson(outcome));
}

/**
 * A push attempt on the wire, snake_case like the rest of the API, with the request as sent
 * (its credentials masked: the Authorization value, a URL-made Basic one included, every header
 * a template configured, the URL's userinfo, and `secrets`) and the receiver's reply body.
 */
export function pushAttemptJson(a: PushAttempt, secrets: readonly string[] = []) {
  return {
    report_id: a.reportId,
    report_type: a.reportType,
    event: a.event,
    webhook_id: a.webhookId,
    method: a.method,
    url: maskUrl(a.url, secrets),
    attempt: a.attempt,
    max_attempts: a.maxAttempts,
    status_code: a.statusCode,
    error: a.error,
    at: a.at.toISOString(),
    duration_ms: a.durationMs,
    outcome: a.outcome,
    next_attempt_at: a.nextAttemptAt?.toISOString() ?? null,
    request: maskRequest({ ...a.request, headers: sentHeaders(a.request) }, secrets),
    response_body: a.responseBody === null ? null : maskText(a.responseBody, secrets),
  };
}

function listAttempts(state: SandboxState, { query }: ApiRequest): JsonReply {
  const webhookId = query.get("webhook_id");
  const reportId = query.get("report_id");
  const data = state.pusher.attempts
    .filter((a) => webhookId === null || a.webhookId === webhookId)
    .filter((a) => reportId === null || a.reportId === reportId)
    .map((a) => pushAttemptJson(a, state.secretsOf(a.webhookId)));
  return ok("OK", data);
}
