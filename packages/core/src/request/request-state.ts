// What the receiver knows of one request while it answers it: never shown to handlers, which
// get a HandlerContext (process/handler-context.ts) of their own. Kept apart so that nothing a
// handler or a store's scope does can change how the receiver replies, journals or measures.
import type { ClassifiedBody } from "../body/classify-body.js";
import { HandlerContext } from "../process/handler-context.js";
import type { EnvRecord } from "../receiver/env-credentials.js";
import type { ReportSpan } from "../store-kit/telemetry.js";
import { getHeader, type ReceiverHeaders } from "./headers.js";

export class RequestState {
  /** When reportkit began handling the request: a timestamp, cheaper than a Date. */
  readonly receivedAt = Date.now();
  readonly method: string;
  readonly url: string;
  readonly headers: ReceiverHeaders;
  /** The header the credential arrives in, left out of the handler's `ctx.headers`. */
  readonly credentialHeader: string;
  /** The request's own environment, where its adapter gives one (see ReceiverRequest.env). */
  readonly env: EnvRecord | undefined;
  /** The body, classified once at the edge (see classify-body.ts). */
  body: ClassifiedBody;
  /** Set once the credential was accepted: only then is a failure journaled. */
  authenticated = false;
  /** Set once the request was recognised as the webhook's verification, never a report. */
  verification = false;
  /** Reading the body began: a refusal from now on leaves nothing unread to drain. */
  bodyReadBegun = false;
  /** The report's kind, once the body was recognised as one. */
  kind: "delivery" | "call" | undefined = undefined;
  /** The report's identity (see `dedupeKey`), once it was read. */
  dedupeKey: string | undefined = undefined;
  /** The report's telemetry span, with telemetry on and once the report was identified. */
  span: ReportSpan | undefined = undefined;
  #context: HandlerContext | undefined;

  constructor(
    method: string,
    url: string,
    headers: ReceiverHeaders,
    credentialHeader: string,
    body: ClassifiedBody,
    env: EnvRecord | undefined,
  ) {
    this.method = method;
    this.url = url;
    this.headers = headers;
    this.credentialHeader = credentialHeader;
    this.body = body;
    this.env = env;
  }

  /** A request header as it came (the credential header included): never for a handler. */
  header(name: string): string | undefined {
    return getHeader(this.headers, name);
  }

  /** What the handler and `onError` get as `ctx`: made on first use, most refusals never need it. */
  get context(): HandlerContext {
    this.#context ??= new HandlerContext(this);
    return this.#context;
  }
}
