// The shapes an adapter and core exchange: the request it describes, the reply it sends, the
// body in every form a framework may hold it, and the receiver itself.
import type { ComposedTemplate } from "./composed.js";
import type { ReportkitError } from "./errors.js";
import type { ReceiverHeaders } from "./headers.js";
import type {
  CallReportFor,
  DeliveryReportFor,
  ErrorHandler,
  Handler,
} from "./receiver-options.js";

/** A request as any adapter can describe it. */
export interface ReceiverRequest {
  method: string;
  /** Path and query ("/webhooks?x=1"), or an absolute URL. */
  url: string;
  headers: ReceiverHeaders;
  body?: ReceiverBody;
}

/** The reply for the adapter to send as is. */
export interface ReceiverResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: string;
  /** Why the request was refused or failed (with a handler's own error as `cause`), for logging. */
  error?: ReportkitError;
}

/**
 * A web `Request` (or `Response`) whose body is still unread. Core reads it whole with
 * `text()` or `arrayBuffer()` when the request declares a Content-Length (checked against
 * `maxBodyBytes` first, and the runtime never delivers more than it), which runtimes such as
 * @hono/node-server serve far faster than the stream; without one, it reads `body` under the
 * limit.
 */
export interface WebBody {
  readonly body: ReadableStream<Uint8Array> | null;
  readonly bodyUsed: boolean;
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/**
 * A request body as an adapter has it: text, bytes, a stream not yet read (web or Node), a
 * web Request with its body unread, an object some framework middleware already parsed, or
 * nothing.
 */
export type ReceiverBody =
  | string
  | Uint8Array
  | ArrayBuffer
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>
  | WebBody
  | Record<string, unknown>
  | readonly unknown[]
  | null
  | undefined;

/**
 * A Node-style readable stream, by the methods core uses (core imports nothing from node:):
 * Node's IncomingMessage, or the stream a framework's hook put in its place.
 */
export interface NodeStyleStream {
  on(event: "data", listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  resume(): unknown;
  /** The bytes a decoding stream took in before decoding them (Fastify's preParsing convention). */
  readonly receivedEncodedLength?: number;
}

/** The request headers the read depends on (Node's and Fastify's header objects have them). */
export interface BodyHeaders {
  readonly "content-length"?: string | undefined;
  readonly "content-type"?: string | undefined;
}

/** Called once: the body, or `payload_too_large` / `body_read_failed`. */
export type BodyDone = (error: ReportkitError | null, body?: string | Uint8Array) => void;

/** Refusals an adapter's framework can hit before core reads the body. */
export type RefusalCode = "payload_too_large" | "body_read_failed" | "invalid_json";

export interface Receiver<T extends ComposedTemplate | undefined = undefined> {
  /** Framework-neutral: adapters translate to and from this. */
  handle(request: ReceiverRequest): Promise<ReceiverResponse>;
  /**
   * `handle` without the promise when none is needed: the reply itself when every step was
   * synchronous (a body already read, the memory dedupe store, a handler that returns a
   * value), else a promise of it. Never throws. For adapters whose framework can answer
   * synchronously; the reply is the same as `handle`'s.
   *
   * @example
   * const reply = receiver.respond(request);
   * if (reply instanceof Promise) reply.then(send); else send(reply);
   */
  respond(request: ReceiverRequest): ReceiverResponse | Promise<ReceiverResponse>;
  /** Web standard: for Workers, Deno, Bun, Hono and any fetch-style server. */
  fetch(request: Request): Promise<Response>;
  /**
   * Reads a Node-style request stream (or the one a framework hook put in its place) whole, for
   * an adapter whose framework hands its body parsers the stream and a callback: text when this
   * receiver reads the Content-Type as UTF-8, else bytes, with `maxBodyBytes` held against the
   * declared length and the bytes as they arrive, and the bytes received against the declared
   * length. Pass what `done` gets to `respond` as the body; an error is a ReportkitError,
   * `payload_too_large` or `body_read_failed`, for `refuse`.
   *
   * @example
   * fastify.addContentTypeParser("*", (request, payload, done) =>
   *   receiver.readStream(payload, request.headers, done),
   * );
   */
  readStream(stream: NodeStyleStream, headers: BodyHeaders, done: BodyDone): void;
  /**
   * The reply for a request whose body the host framework could not read (for example
   * Fastify's own body limit), exactly as `handle` would give it: the method, the token and
   * the content type are still checked first, and `onError` is told.
   */
  refuse(code: RefusalCode, request: Omit<ReceiverRequest, "body">): Promise<ReceiverResponse>;
  /**
   * Attaches the SMS delivery report handler (one per receiver: a second one throws). Until a
   * handler of either kind is attached, reports get 503 `no_handler`, so none is lost while
   * the app starts.
   */
  onDelivery(handler: Handler<DeliveryReportFor<T>>): this;
  /** Attaches the call report handler (one per receiver). */
  onCall(handler: Handler<CallReportFor<T>>): this;
  /** Attaches the observer of refusals and failures (one per receiver); the default logging then stops. */
  onError(handler: ErrorHandler): this;
}
