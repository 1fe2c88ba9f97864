import { randomBytes, randomUUID } from "node:crypto";
import type { ResolvedTemplate } from "./render-composed.js";
import type { ChallengeOutcome } from "./verification-challenge.js";

export interface StoredWebhook {
  id: string;
  name: string;
  uri: string;
  status: 0 | 1;
  /** The webhook's secret: the bearer of every push, and of its verification request. */
  secret: string | null;
  /**
   * The webhook's token, the provider's validation key: sent once, in the verification request
   * (`POST <uri>?token=<token>`), never as a bearer.
   */
  token: string | null;
  verificationCode: string;
  createdAt: Date;
  updatedAt: Date;
  /** Set for a composed webhook; `uri` then holds its callback URL template. */
  composed: ResolvedTemplate | null;
  /** The last verification request the sandbox sent it, if any. */
  challenge: ChallengeOutcome | null;
}

/** Where the secret a webhook's requests carry as their bearer comes from. */
export type SecretSource = "secret" | "REPORTKIT_SECRET";

/**
 * The bearer the sandbox sends with a webhook's pushes and its verification request, as the
 * provider does: the webhook's `secret`, else `fallback` (`webhookSecret`, the
 * `REPORTKIT_SECRET` of the sandbox's environment when the CLI runs it), else none. The token
 * is never the bearer: it is the validation key of the verification.
 */
export function bearerOf(
  webhook: Pick<StoredWebhook, "secret">,
  fallback: string | undefined,
): { secret: string; from: SecretSource } | null {
  if (webhook.secret !== null) return { secret: webhook.secret, from: "secret" };
  if (fallback !== undefined) return { secret: fallback, from: "REPORTKIT_SECRET" };
  return null;
}

export interface WebhookFields {
  name: string;
  uri: string;
  status?: 0 | 1;
  secret?: string;
  token?: string;
  composed?: ResolvedTemplate;
}

/** Webhooks in creation order, in memory. */
export class WebhookStore {
  private readonly byId = new Map<string, StoredWebhook>();

  /** @param onChange told of each webhook created, edited or deleted (after the change). */
  constructor(private readonly onChange: (webhook: StoredWebhook) => void = () => {}) {}

  create(fields: WebhookFields): StoredWebhook {
    const now = wholeSecond(new Date());
    const webhook: StoredWebhook = {
      id: randomUUID(),
      name: fields.name,
      uri: fields.uri,
      status: fields.status ?? 1,
      secret: fields.secret ?? null,
      token: fields.token ?? null,
      verificationCode: randomBytes(16).toString("hex"),
      createdAt: now,
      updatedAt: now,
      composed: fields.composed ?? null,
      challenge: null,
    };
    this.byId.set(webhook.id, webhook);
    this.onChange(webhook);
    return webhook;
  }

  get(id: string): StoredWebhook | undefined {
    return this.byId.get(id);
  }

  update(id: string, fields: WebhookFields): StoredWebhook | undefined {
    const webhook = this.byId.get(id);
    if (webhook === undefined) return undefined;
    webhook.name = fields.name;
    webhook.uri = fields.uri;
    if (fields.status !== undefined) webhook.status = fields.status;
    if (fields.secret !== undefined) webhook.secret = fields.secret;
    if (fields.token !== undefined) webhook.token = fields.token;
    if (fields.composed !== undefined) webhook.composed = fields.composed;
    webhook.updatedAt = wholeSecond(new Date());
    this.onChange(webhook);
    return webhook;
  }

  /** Keeps the outcome of a verification challenge sent to the webhook (the dashboard shows it). */
  challenged(id: string, outcome: ChallengeOutcome): void {
    const webhook = this.byId.get(id);
    if (webhook === undefined) return;
    webhook.challenge = outcome;
    this.onChange(webhook);
  }

  delete(id: string): boolean {
    const webhook = this.byId.get(id);
    if (webhook === undefined) return false;
    this.byId.delete(id);
    this.onChange(webhook);
    return true;
  }

  /** Webhooks whose name contains `name`, case-insensitively (a SQL LIKE %name%). */
  list(name?: string): StoredWebhook[] {
    const all = [...this.byId.values()];
    if (name === undefined || name === "") return all;
    const needle = name.toLowerCase();
    return all.filter((w) => w.name.toLowerCase().includes(needle));
  }
}

// The provider stores seconds (MySQL timestamps): its JSON shows .000000 microseconds.
function wholeSecond(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}
