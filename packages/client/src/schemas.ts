import { z } from "zod";
import { paginated } from "./paginator.js";

// Lenient on format: unknown fields pass through (kept in `raw`), numbers may come as digit
// strings and the other way round, as PHP backends mix them. Strict on types that matter: a
// wrong type is an error naming the field.

const text = z.union([z.string(), z.number().transform(String)], {
  error: "expected a string",
});

// The provider sends "1"/"0" in list, create and edit responses and 1/0 in show.
const webhookStatus = z.union(
  [
    z.literal([0, 1]),
    z.literal(["0", "1"]).transform((s) => (s === "1" ? 1 : 0)),
    z.boolean().transform((b) => (b ? 1 : 0)),
  ],
  { error: 'expected 0 or 1 (as a number or as the string "0"/"1")' },
);

const timestamp = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), {
    error: "expected an ISO 8601 timestamp such as 2022-10-19T07:40:13.000000Z",
  })
  .nullish()
  .transform((s) => (s == null ? null : new Date(s)));

const optionalText = z
  .string()
  .nullish()
  .transform((s) => s ?? null);

/** A webhook as the management API serves it (section 2.1). */
export const WebhookWireSchema = z.looseObject({
  id: text,
  name: text,
  uri: z.string(),
  status: webhookStatus,
  secret: optionalText,
  verification_code: optionalText,
  created_at: timestamp,
  updated_at: timestamp,
});

export type WebhookWire = z.input<typeof WebhookWireSchema>;

/** A webhook as the client returns it; `raw` keeps the object exactly as served. */
export const WebhookSchema = z.unknown().transform((input, ctx) => {
  const parsed = WebhookWireSchema.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      ctx.addIssue({ code: "custom", message: issue.message, path: issue.path as PropertyKey[] });
    }
    return z.NEVER;
  }
  const w = parsed.data;
  return {
    id: w.id,
    name: w.name,
    uri: w.uri,
    /** 1 = active, 0 = inactive, whether the API sent "1" or 1. */
    status: w.status,
    active: w.status === 1,
    /** Masked as served (the API never returns the real secret). */
    secret: w.secret,
    /** Masked as served. */
    verificationCode: w.verification_code,
    createdAt: w.created_at,
    updatedAt: w.updated_at,
    /** The webhook exactly as served, unknown fields included. */
    raw: input as Readonly<Record<string, unknown>>,
  };
});

export type Webhook = z.output<typeof WebhookSchema>;
export type WebhookStatus = Webhook["status"];

/** The list response: a Laravel API-resource paginator (sections 2.2 and 2.3). */
export const WebhookListResponseSchema = paginated(WebhookSchema);

/** One page of webhooks. */
export type WebhookPage = z.output<typeof WebhookListResponseSchema>;

/** Create, show and edit: the envelope around one webhook. */
export const WebhookResponseSchema = z.looseObject({
  message: z.string().optional(),
  data: WebhookSchema,
});
