import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { signedDateMs } from "@reportkit/wire/internal";

// The sandbox's recording URLs look like the provider's (the Recordings API's sample in
// v2/voice/logs.md: a presigned S3 URL, its parameters in that order) and work like them: the
// signature is checked, and the URL stops working `X-Amz-Expires` seconds after `X-Amz-Date`,
// by the sandbox's clock. The signature is an HMAC of the path and the two times under a key
// made per run: not AWS's algorithm, which nothing here needs, but as unforgeable.

/** What a presigned URL's query says, once checked. */
export type PresignedVerdict =
  | { ok: true }
  | { ok: false; why: "unsigned" | "bad-signature" }
  | { ok: false; why: "expired"; expiresAt: number; lifetimeSeconds: number };

const REGION = "ap-south-1";
const KEY_ID = "RPTKITSANDBOX";

export class PresignedUrls {
  readonly #key = randomBytes(32);

  /** The query of a URL for `path` signed at `signedAt` (ms), valid `lifetimeSeconds`. */
  query(path: string, signedAt: number, lifetimeSeconds: number): string {
    const date = amzDate(signedAt);
    const params = new URLSearchParams([
      ["X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD"],
      ["X-Amz-Algorithm", "AWS4-HMAC-SHA256"],
      ["X-Amz-Credential", `${KEY_ID}/${date.slice(0, 8)}/${REGION}/s3/aws4_request`],
      ["X-Amz-Date", date],
      ["X-Amz-SignedHeaders", "host"],
      ["X-Amz-Expires", String(lifetimeSeconds)],
      ["X-Amz-Signature", this.#signature(path, date, String(lifetimeSeconds))],
    ]);
    return params.toString();
  }

  /** Whether the query signs `path`, and whether it is still valid at `now` (ms). */
  check(path: string, query: URLSearchParams, now: number): PresignedVerdict {
    const date = query.get("X-Amz-Date");
    const lifetime = query.get("X-Amz-Expires");
    const signature = query.get("X-Amz-Signature");
    if (date === null || lifetime === null || signature === null) {
      return { ok: false, why: "unsigned" };
    }
    const expected = Buffer.from(this.#signature(path, date, lifetime));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { ok: false, why: "bad-signature" };
    }
    // The sandbox's own date, which the signature vouches for.
    const signedAt = signedDateMs(date) ?? 0;
    const lifetimeSeconds = Number(lifetime);
    const expiresAt = signedAt + lifetimeSeconds * 1000;
    if (now >= expiresAt) return { ok: false, why: "expired", expiresAt, lifetimeSeconds };
    return { ok: true };
  }

  #signature(path: string, date: string, lifetime: string): string {
    return createHmac("sha256", this.#key).update(`${path}\n${date}\n${lifetime}`).digest("hex");
  }
}

/** "20190813T124618Z": SigV4's basic ISO 8601, UTC, whole seconds. */
export function amzDate(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}
