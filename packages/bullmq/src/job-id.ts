import { createHash } from "node:crypto";

/**
 * The BullMQ job id of a report with dedupe key `key`: the same key always gives the same id,
 * so adding a provider's retry of a report already queued (or processed, while its job is kept)
 * adds nothing. BullMQ refuses custom ids containing ":" or made only of digits, and dedupe keys
 * contain ":", so the key is hashed: "rk-" and the base64url SHA-256 of the key.
 *
 * @example
 * reportJobId("delivery:b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1:DELIVRD"); // "rk-…" (46 chars)
 */
export function reportJobId(key: string): string {
  return `rk-${createHash("sha256").update(key).digest("base64url")}`;
}
