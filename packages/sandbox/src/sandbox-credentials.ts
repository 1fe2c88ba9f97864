import { randomBytes, timingSafeEqual } from "node:crypto";
import { fail, type JsonReply } from "./laravel.js";

/**
 * The two credentials the sandbox accepts, each compared in constant time: the API token
 * (`Authorization: Bearer <token>`) for the management API, and a random per-run dashboard key
 * (not the API token) for the dashboard's API.
 */
export class SandboxCredentials {
  readonly #expected: Buffer;
  readonly #dashboardKey = Buffer.from(randomBytes(18).toString("base64url"));

  constructor(token: string) {
    this.#expected = Buffer.from(`Bearer ${token}`);
  }

  /** The dashboard key, for the `#key=` of the printed dashboard URL. */
  get dashboardKey(): string {
    return this.#dashboardKey.toString();
  }

  /** Whether an Authorization header carries the API token (the scheme in any case). */
  authorized(header: string | undefined): boolean {
    if (header === undefined) return false;
    const given = Buffer.from(header.trim().replace(/^bearer\s+/i, "Bearer "));
    return given.length === this.#expected.length && timingSafeEqual(given, this.#expected);
  }

  /** Whether the given value is the dashboard key. */
  dashboardAuthorized(given: string | null): boolean {
    if (given === null) return false;
    const bytes = Buffer.from(given);
    return bytes.length === this.#dashboardKey.length && timingSafeEqual(bytes, this.#dashboardKey);
  }
}

/** The 401 for a missing or wrong credential: the dashboard's says where its key is. */
export function unauthenticated(dashboardApi: boolean): JsonReply {
  return dashboardApi
    ? fail(401, "Unauthenticated: open the dashboard URL the sandbox printed (it carries the key).")
    : fail(401, "Unauthenticated.", undefined, { "www-authenticate": "Bearer" });
}
