import { EventFeed } from "./event-feed.js";
import { credentialsOf } from "./mask.js";
import { MessageLog } from "./message-log.js";
import { PresignedUrls } from "./presigned-url.js";
import { createPusher, type PushAttempt } from "./pusher.js";
import { RecordingFiles } from "./recording-files.js";
import type { SandboxState } from "./sandbox-api.js";
import type { ResolvedSandboxOptions, VerificationSent } from "./sandbox-options.js";
import { Dispatcher } from "./simulate-sms-and-calls.js";
import { SubscriptionStore } from "./subscriptions-api.js";
import { type ChallengeOutcome, sendVerification } from "./verification-challenge.js";
import { VoiceLog } from "./voice-log.js";
import { bearerOf, WebhookStore } from "./webhook-store.js";

/**
 * The sandbox's working parts, wired together: the webhook store, the pusher, the dispatcher
 * of simulated messages and calls, the credentials to mask, the voice logs and the recording
 * host, and the feed that tells the dashboard of every change to the webhooks and of every
 * push attempt.
 */
export function createSandboxState(
  options: ResolvedSandboxOptions,
  onAttempt: (attempt: PushAttempt) => void,
  onVerification: (verification: VerificationSent) => void,
  /** The sandbox's own origin (known once it listens): the recording URLs' host. */
  origin: () => string,
): { state: SandboxState; feed: EventFeed; close: () => void } {
  const { pushing, fallbackSecret } = options;
  // Aborts the verification requests still waiting for an answer when the sandbox closes.
  const closing = new AbortController();
  const feed = new EventFeed();
  // Every credential a webhook ever had (secret, token, configured header values, URI
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
  const urls = new PresignedUrls();
  const voice = new VoiceLog(urls, options.now);
  const dispatcher = new Dispatcher(
    store,
    pusher,
    options.timeZone,
    options.payloads,
    fallbackSecret,
    messages,
    { log: voice, origin },
    options.now,
  );
  const state: SandboxState = {
    store,
    dispatcher,
    pusher,
    secretsOf: (id) => [
      ...(id === null ? [] : (secrets.get(id) ?? [])),
      ...(fallbackSecret === undefined ? [] : [fallbackSecret]),
    ],
    fallbackSecret,
    messages,
    subscriptions: new SubscriptionStore(),
    voice,
    recordingFiles: new RecordingFiles(voice, urls, options.now),
    async challenge(webhook) {
      const outcome: ChallengeOutcome =
        webhook.composed === null
          ? await sendVerification(
              webhook.uri,
              {
                token: webhook.token,
                bearer: bearerOf(webhook, fallbackSecret)?.secret ?? null,
              },
              { timeoutMs: pushing.timeoutMs, payloads: options.payloads, signal: closing.signal },
            )
          : {
              sent: false,
              passed: false,
              url: null,
              statusCode: null,
              reason:
                "a composed webhook's URL is a template (the verification goes to standard webhooks)",
              at: new Date(),
            };
      store.challenged(webhook.id, outcome);
      onVerification({ webhookId: webhook.id, webhookName: webhook.name, outcome });
      return outcome;
    },
  };
  return { state, feed, close: () => closing.abort() };
}
