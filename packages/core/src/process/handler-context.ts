// The handler's `ctx`, plus what a dedupe store's `scope()` adds (`ctx.tx`): its own object, so
// nothing a handler or a scope writes changes how the receiver replies, journals or measures.
import { withoutCredentials } from "@reportkit/wire/internal";
import type { ReceiverHeaders, ReceiverRequest } from "../base/types.js";

/** What a handler (and onError) learns about the request besides the report. */
export interface ReportContext {
  /** When reportkit began handling the request. */
  readonly receivedAt: Date;
  /** The request method, uppercase. */
  readonly method: string;
  /** The request URL as the adapter gave it, any credential in its query "[redacted]". */
  readonly url: string;
  /** The request headers, without the credential header (never a secret in your logs). */
  readonly headers: Headers;
  /** The report's identity (`dedupe.key`, or `defaultDedupeKey`) for idempotent writes. */
  readonly dedupeKey: string | undefined;
}

/** The names a store's scope may not use: a scope that returns one is a store bug (500). */
const CONTEXT_FIELDS = new Set(["receivedAt", "method", "url", "headers", "dedupeKey", "toJSON"]);

interface ContextOf {
  readonly request: ReceiverRequest;
  readonly receivedAt: number;
  readonly dedupeKey?: string | undefined;
  readonly credentialHeader: string;
}

/** Read-only views of the request; the URL and the headers are redacted on first read. */
export class HandlerContext implements ReportContext {
  readonly #of: ContextOf;
  #url: string | undefined;
  #headers: Headers | undefined;

  constructor(of: ContextOf) {
    this.#of = of;
  }

  get receivedAt(): Date {
    return new Date(this.#of.receivedAt);
  }

  get method(): string {
    return this.#of.request.method;
  }

  get dedupeKey(): string | undefined {
    return this.#of.dedupeKey;
  }

  get url(): string {
    this.#url ??= withoutCredentials(this.#of.request.url);
    return this.#url;
  }

  get headers(): Headers {
    this.#headers ??= redactedHeaders(this.#of.request.headers, this.#of.credentialHeader);
    return this.#headers;
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

/** Adds a store's scope to the context. @throws TypeError for a scope that is no such object */
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

/** The headers without the ones that carry credentials: `ctx.headers` may be logged. */
function redactedHeaders(headers: ReceiverHeaders, secretHeader: string): Headers {
  const out = new Headers();
  const entries: Iterable<[string, string | readonly string[] | undefined]> =
    headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [key, value] of entries) {
    const lower = key.toLowerCase();
    // HTTP/2 pseudo-headers (":method", ":path") are not headers to a web Headers object.
    if (value === undefined || lower[0] === ":") continue;
    if (lower === "authorization" || lower === secretHeader) continue;
    try {
      out.set(lower, typeof value === "string" ? value : value.join(", "));
    } catch {
      // A name or value web Headers refuses is left out, rather than fail the handler.
    }
  }
  return out;
}
