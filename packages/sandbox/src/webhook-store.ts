import { randomBytes, randomUUID } from "node:crypto";
import type { ResolvedTemplate } from "./render-composed.js";

export interface StoredWebhook {
  id: string;
  name: string;
  uri: string;
  status: 0 | 1;
  secret: string | null;
  /** The verification token given at creation; sent as the bearer when there is one. */
  token: string | null;
  verificationCode: string;
  createdAt: Date;
  updatedAt: Date;
  /** Set for a composed webhook; `uri` then holds its callback URL template. */
  composed: ResolvedTemplate | null;
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
    };
    this.byId.set(webhook.id, webhook);
    this.onChange(webhook);
    return webhook;
  }

  get(id: string): StoredWebhook | undefined {
    return this.byId.get(id);
  }

  update(id: string, fields: Omit<WebhookFields, "token">): StoredWebhook | undefined {
    const webhook = this.byId.get(id);
    if (webhook === undefined) return undefined;
    webhook.name = fields.name;
    webhook.uri = fields.uri;
    if (fields.status !== undefined) webhook.status = fields.status;
    if (fields.secret !== undefined) webhook.secret = fields.secret;
    if (fields.composed !== undefined) webhook.composed = fields.composed;
    webhook.updatedAt = wholeSecond(new Date());
    this.onChange(webhook);
    return webhook;
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
