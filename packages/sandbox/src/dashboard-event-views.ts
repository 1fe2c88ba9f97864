import type { SandboxEvent } from "./event-feed.js";
import { NOTIFICATION_EVENTS } from "./notifications.js";
import { pushAttemptJson, type SandboxState, shownWebhook } from "./sandbox-api.js";

/** How many of the latest attempts an event stream's snapshot carries. */
const SNAPSHOT_ATTEMPTS = 500;

/**
 * What the dashboard's event stream starts with: the webhooks, the latest attempts, and the
 * events the sandbox pushes (its send form's choices).
 */
export function eventStreamSnapshot(state: SandboxState, baseUrl: string) {
  return {
    base_url: baseUrl,
    notification_events: NOTIFICATION_EVENTS,
    webhooks: state.store.list().map((w) => shownWebhook(w, state.fallbackSecret)),
    attempts: state.pusher.attempts
      .slice(-SNAPSHOT_ATTEMPTS)
      .map((a) => pushAttemptJson(a, state.secretsOf(a.webhookId))),
  };
}

/** One change as the event stream sends it: the webhooks anew, or one attempt, masked. */
export function eventStreamMessage(state: SandboxState, event: SandboxEvent) {
  if (event.type === "webhooks") {
    return {
      name: "webhooks",
      data: state.store.list().map((w) => shownWebhook(w, state.fallbackSecret)),
    };
  }
  const { attempt } = event;
  return { name: "attempt", data: pushAttemptJson(attempt, state.secretsOf(attempt.webhookId)) };
}
