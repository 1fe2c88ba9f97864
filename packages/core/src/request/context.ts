import type { BodyContent } from "../body/media-type.js";
import type { ReportSpan } from "../store-kit/telemetry.js";
import { getHeader, type ReceiverHeaders, redactedHeaders } from "./headers.js";

/** What a handler (and onError) learns about the request besides the report. */
export interface ReportContext {
  /** When reportkit began handling the request. */
  readonly receivedAt: Date;
  /** The request method, uppercase. */
  readonly method: string;
  /** The request URL as the adapter gave it (path and query, or absolute). */
  readonly url: string;
  /** The request headers, without the credential header (never a token in your logs). */
  readonly headers: Headers;
  /**
   * The report's identity (the `dedupeKey` option, or delivery id + status, call mid + to +
   * status + start), for the app's own idempotent writes; undefined for a report without one.
   */
  readonly dedupeKey: string | undefined;
}

/** Builds the redacted headers only if a handler reads them: most never do. */
export class RequestContext implements ReportContext {
  // A timestamp is cheaper than a Date; most handlers never read it.
  readonly #receivedAt = Date.now();
  readonly method: string;
  readonly url: string;
  dedupeKey: string | undefined = undefined;
  // What the receiver itself needs to know of the request later on, never shown to handlers
  // (ReportContext has none of it): set once the credential was accepted, the body as it was
  // read (for the failure journal), the report's kind, and its telemetry span.
  /** @internal */
  authenticated = false;
  /** @internal Reading the body began: a refusal from now on leaves nothing unread to drain. */
  bodyReadBegun = false;
  /** @internal */
  body: BodyContent = undefined;
  /** @internal */
  kind: "delivery" | "call" | undefined = undefined;
  /** @internal */
  span: ReportSpan | undefined = undefined;
  #raw: ReceiverHeaders;
  #secretHeader: string;
  #headers: Headers | undefined;

  constructor(method: string, url: string, headers: ReceiverHeaders, secretHeader: string) {
    this.method = method;
    this.url = url;
    this.#raw = headers;
    this.#secretHeader = secretHeader;
  }

  #receivedAtDate: Date | undefined;

  get receivedAt(): Date {
    this.#receivedAtDate ??= new Date(this.#receivedAt);
    return this.#receivedAtDate;
  }

  /** @internal The request's headers as the adapter gave them: for a challenge responder. */
  get rawHeaders(): ReceiverHeaders {
    return this.#raw;
  }

  /** @internal A request header as it came (the credential header included): for the journal. */
  rawHeader(name: string): string | undefined {
    return getHeader(this.#raw, name);
  }

  get headers(): Headers {
    this.#headers ??= redactedHeaders(this.#raw, this.#secretHeader);
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
