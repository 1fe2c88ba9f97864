import type { ReportKind } from "@reportkit/wire";

/** A claim's outcome: "claimed" (run the handler), "done" (acknowledge), "busy" (not now). */
export type ClaimResult = "claimed" | "done" | "busy";

/**
 * Where a receiver remembers the reports it processed, so that a retry is acknowledged without
 * running the handler again. `claim` before the handler (atomically: of two concurrent claims one
 * gets "claimed"); `complete` once it succeeded ("done" for the TTL, whoever holds it); `release`
 * once it failed (only if `owner` still holds the key). A lease runs out by itself, so a process
 * killed mid-handler holds nothing forever. A rejection: 503 `dedupe_unavailable`, never 2xx.
 */
export interface DedupeStore<Scope extends object = object> {
  /** How long a claim holds before it runs out by itself, in milliseconds. */
  readonly leaseMs: number;
  claim(key: string, owner: string): ClaimResult | Promise<ClaimResult>;
  complete(key: string, owner: string): void | Promise<void>;
  release(key: string, owner: string): void | Promise<void>;
  /**
   * For a store whose claim opens a transaction: what the claimed attempt's handler gets on
   * `ctx` (`{ tx }`), asked once after "claimed". Such a store commits in `complete` (a rejection:
   * not recorded, 503) and rolls back in `release`; a report without a key gets a key of its own.
   */
  scope?(owner: string): Scope;
  /** What the store is, for `health()` and messages ("redis", "postgres"). */
  readonly name?: string;
  /** One round trip to the store, for `receiver.health()` (the receiver bounds its time). */
  ping?(): Promise<void>;
  /** Closes what the store created itself (a client from a URL), never what it was given. */
  close?(): Promise<void>;
  /** Where this store keeps the reports that could not be processed, if it keeps them. */
  readonly journal?: FailureJournal;
}

/** Where an authenticated report that could not be processed is kept, never silently gone. */
export interface FailureJournal {
  /** Keeps `entry` by its key (a kept one: attempts + 1); `complete` or replay resolve it. */
  record(entry: JournalRecord): Promise<void>;
  /** One round trip, for `receiver.health()`. */
  ping?(): Promise<void>;
  /**
   * What `record` gets of a report: `"full"` (default), the request as it came, for `reportkit
   * replay`; `"redacted"`, its phone numbers (fields that carry one, any run of 7 or more digits
   * elsewhere) replaced by `[redacted]`, so none is ever stored.
   */
  readonly bodies?: JournalBodies;
}

/** What a failure journal keeps of a report's body: see `FailureJournal.bodies`. */
export type JournalBodies = "full" | "redacted";

/** One failed or refused attempt, as the receiver hands it to the journal. */
export interface JournalRecord {
  /** The report's dedupe key, or "sha256:<hex>" of the request when it has none (a refusal). */
  key: string;
  kind: ReportKind | null;
  status: "failed" | "refused";
  /** The request as it came, to replay it: never the Authorization header or any token. */
  request: JournalRequest;
  /** The error code and message the receiver answered with. */
  error: { code: string; message: string };
  at: Date;
}

/** A kept request: enough to send it again. */
export interface JournalRequest {
  method: string;
  /** Path and query, as the request had them. */
  url: string;
  contentType: string | null;
  /** The body as text (`utf8`) or bytes in base64 (`base64`). */
  body: string;
  bodyEncoding: "utf8" | "base64";
}

/** A kept entry, as a journal lists it. */
export interface JournalEntry {
  key: string;
  kind: ReportKind | null;
  status: "failed" | "refused" | "resolved";
  request: JournalRequest;
  firstSeen: Date;
  lastSeen: Date;
  attempts: number;
  lastError: string;
}

/** The provider retries 3 times, 30 minutes apart: 90 minutes from the first attempt. */
export const PROVIDER_RETRY_WINDOW_MS = 3 * 30 * 60_000;
/** Default TTL of a "done" key: the retry window plus 30 minutes for late or slow attempts. */
export const DEFAULT_DEDUPE_TTL_MS = PROVIDER_RETRY_WINDOW_MS + 30 * 60_000;
/** Default lease: well past the answer deadline (8 s), well before the next retry (30 min). */
export const DEFAULT_LEASE_MS = 60_000;
