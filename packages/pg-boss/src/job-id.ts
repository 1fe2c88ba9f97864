import { createHash } from "node:crypto";

/**
 * The pg-boss job id of a report with dedupe key `key`: the same key always gives the same id,
 * so adding a provider's retry of a report already queued (or processed, while its job is kept)
 * adds nothing. pg-boss's ids are UUIDs, so the key is hashed: the first 128 bits of its SHA-256
 * as a UUID of version 8 (RFC 9562's custom layout).
 *
 * @example
 * reportJobId("delivery:b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1:DELIVRD"); // "…-…-8…-…-…"
 */
export function reportJobId(key: string): string {
  const bytes = createHash("sha256").update(key).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
