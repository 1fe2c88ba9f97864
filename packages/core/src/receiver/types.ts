// The shapes an adapter and core exchange: the request it describes, the reply it sends, the
// body in every form a framework may hold it, and the receiver itself.
import type { ComposedTemplate } from "@reportkit/wire";
import type { ReportkitError } from "../reply/errors.js";
import type { ReceiverHeaders } from "../request/headers.js";
import type { EnvRecord } from "./env-credentials.js";
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
  /**
   * The environment this request runs in, for an adapter whose token comes from it per request
   * (Workers bindings, Hono's `c.env`; a Next.js route's process.env, read when the request
   * comes): see `adapterReceiver`'s `requestEnv`. Leave it out otherwise.
   */
  env?: EnvRecord;
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
  /** Stops the flow of a refused body (Node's streams have it): its rest is not read. */
  pause?(): unknown;
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
export type RefusalCode =
  | "payload_too_large"
  | "body_read_failed"
  | "invalid_json"
  | "request_timeout";

/** What `health()` found: `ok` when every check is. */
export interface HealthReport {
  ok: boolean;
  /** One check per store, journal and queue the receiver uses, by name ("dedupe", "queue", …). */
  checks: Record<string, { ok: boolean; message?: string }>;
}

export interface CloseOptions {
  /**
   * How long to wait for reports in flight before closing the stores anyway, in ms. Default
   * 9000: just under the usual 10 s a container is given between SIGTERM and SIGKILL.
   */
  timeoutMs?: number;
}

export interface Receiver<
  T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
> {
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
  /**
   * Web standard: for Workers, Deno, Bun, Hono and any fetch-style server. `env`: the request's
   * environment (a Worker's bindings), for a receiver whose token comes from it (see
   * `ReceiverRequest.env`).
   */
  fetch(request: Request, env?: EnvRecord): Promise<Response>;
  /**
   * Reads a Node-style request stream (or the one a framework hook put in its place) whole, for
   * an adapter whose framework hands its body parsers the stream and a callback: text when this
   * receiver reads the Content-Type as UTF-8, else bytes, with `maxBodyBytes` held against the
   * declared length and the bytes as they arrive, and the bytes received against the declared
   * length, within `bodyTimeoutMs`. Pass what `done` gets to `respond` as the body; an error is
   * a ReportkitError, `payload_too_large`, `body_read_failed` or `request_timeout`, for
   * `refuse` (whose reply then says `Connection: close` where the rest of the body is unread).
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
  onDelivery(handler: Handler<DeliveryReportFor<T>, S>): this;
  /** Attaches the call report handler (one per receiver). */
  onCall(handler: Handler<CallReportFor<T>, S>): this;
  /** Attaches the observer of refusals and failures (one per receiver); the default logging then stops. */
  onError(handler: ErrorHandler): this;
  /**
   * Asks the dedupe store, the failure journal and the queue this receiver uses for one round
   * trip each (at most 2 s), for a load balancer's health check. Never rejects.
   *
   * @example
   * app.get("/healthz", async (_req, res) => {
   *   const health = await receiver.health();
   *   res.status(health.ok ? 200 : 503).json(health);
   * });
   */
  health(): Promise<HealthReport>;
  /**
   * Graceful shutdown: from now on reports get 503 `shutting_down` (the provider retries them
   * later, elsewhere), the reports in flight are waited for up to `timeoutMs`, then the dedupe
   * store and the queue are closed (each closes only what it created itself). Never rejects.
   *
   * @example
   * process.on("SIGTERM", async () => {
   *   await receiver.close();
   *   server.close();
   * });
   */
  close(options?: CloseOptions): Promise<void>;
}
