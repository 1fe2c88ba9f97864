// The handler's `ctx`: what a handler (and `onError`) learns about the request besides the
// report, plus what the dedupe store's `scope()` adds to a claimed report (`ctx.tx` with the
// Postgres inbox). Its own object: the receiver's state of the request is not in it, so nothing
// a handler or a store's scope writes changes how the receiver replies, journals or measures.
import { type ReceiverHeaders, redactedHeaders } from "../request/headers.js";

/** What a handler (and onError) learns about the request besides the report. */
export interface ReportContext {
  /** When reportkit began handling the request. */
  readonly receivedAt: Date;
  /** The request method, uppercase. */
  readonly method: string;
  /** The request URL as the adapter gave it (path and query, or absolute). */
  readonly url: string;
  /** The request headers, without the credential header (never a secret in your logs). */
  readonly headers: Headers;
  /**
   * The report's identity (the `dedupeKey` option, or delivery id + status, call mid + to +
   * status + start), for the app's own idempotent writes; undefined for a report without one.
   */
  readonly dedupeKey: string | undefined;
}

/** What the context reads from: the receiver's request state, by the fields it needs. */
export interface ContextSource {
  readonly receivedAt: number;
  readonly method: string;
  readonly url: string;
  readonly headers: ReceiverHeaders;
  readonly credentialHeader: string;
  readonly dedupeKey: string | undefined;
}

/**
 * The names a store's scope may not use: the documented fields of `ctx` (and `toJSON`). A scope
 * that returns one is a store bug, answered 500 `internal_error` with the key named.
 */
export const CONTEXT_FIELDS: ReadonlySet<string> = new Set([
  "receivedAt",
  "method",
  "url",
  "headers",
  "dedupeKey",
  "toJSON",
]);

/** Read-only views of the request; the Date and the redacted headers are built on first read. */
export class HandlerContext implements ReportContext {
  readonly #source: ContextSource;
  #receivedAt: Date | undefined;
  #headers: Headers | undefined;

  constructor(source: ContextSource) {
    this.#source = source;
  }

  get receivedAt(): Date {
    this.#receivedAt ??= new Date(this.#source.receivedAt);
    return this.#receivedAt;
  }

  get method(): string {
    return this.#source.method;
  }

  get url(): string {
    return this.#source.url;
  }

  get headers(): Headers {
    this.#headers ??= redactedHeaders(this.#source.headers, this.#source.credentialHeader);
    return this.#headers;
  }

  get dedupeKey(): string | undefined {
    return this.#source.dedupeKey;
  }

  toJSON() {
    return {
      receivedAt: this.receivedAt,
      method: this.method,
      url: this.url,
      headers: Object.fromEntries(this.headers),
      dedupeKey: this.dedupeKey,
    };
  }
}

/**
 * Adds a store's scope to the context.
 * @throws TypeError when the scope is not an object, or names a documented field of `ctx`
 */
export function addScope(ctx: HandlerContext, scope: unknown, store: string): void {
  if (scope === undefined) return;
  if (typeof scope !== "object" || scope === null) {
    throw new TypeError(
      `reportkit: the dedupe store ${store}'s scope() returned ${scope === null ? "null" : typeof scope}; it must return an object of what the handler gets on ctx (e.g. { tx }).`,
    );
  }
  for (const key of Object.keys(scope)) {
    if (CONTEXT_FIELDS.has(key)) {
      throw new TypeError(
        `reportkit: the dedupe store ${store}'s scope() returned \`${key}\`, a field of ctx the receiver sets; the store must name it otherwise.`,
      );
    }
  }
  Object.assign(ctx, scope);
}
