import { EventFeed } from "./event-feed.js";
import { credentialsOf } from "./mask.js";
import { MessageLog } from "./message-log.js";
import { createPusher, type PushAttempt } from "./pusher.js";
import type { SandboxState } from "./sandbox-api.js";
import type { ResolvedSandboxOptions } from "./sandbox-options.js";
import { Dispatcher } from "./simulate-sms-and-calls.js";
import { SubscriptionStore } from "./subscriptions-api.js";
import { sendChallenge } from "./verification-challenge.js";
import { bearerOf, WebhookStore } from "./webhook-store.js";

/**
 * The sandbox's working parts, wired together: the webhook store, the pusher, the dispatcher
 * of simulated messages and calls, the credentials to mask, and the feed that tells the
 * dashboard of every change to the webhooks and of every push attempt.
 */
export function createSandboxState(
  options: ResolvedSandboxOptions,
  onAttempt: (attempt: PushAttempt) => void,
): { state: SandboxState; feed: EventFeed } {
  const { pushing, fallbackToken } = options;
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
      onAttempt(attempt);
    },
  });
  const messages = new MessageLog();
  const dispatcher = new Dispatcher(
    store,
    pusher,
    options.timeZone,
    options.payloads,
    fallbackToken,
    messages,
  );
  const state: SandboxState = {
    store,
    dispatcher,
    pusher,
    secretsOf: (id) => [
      ...(id === null ? [] : (secrets.get(id) ?? [])),
      ...(fallbackToken === undefined ? [] : [fallbackToken]),
    ],
    fallbackToken,
    messages,
    subscriptions: new SubscriptionStore(),
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
  return { state, feed };
}
