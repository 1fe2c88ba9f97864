// The shapes an adapter and core exchange, at the bottom of core: the one request an adapter
// hands the receiver and the reply it sends back as it is.

/** Request headers as an adapter has them: web `Headers`, or a Node-style record. */
export type ReceiverHeaders =
  | Headers
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Environment variables, as `process.env` or a Workers `env` holds them. */
export type EnvRecord = Readonly<Record<string, unknown>>;

/** A body still to be read (a Node request, a web ReadableStream), under core's limits. */
export type BodyStream = AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>;

/** The one request an adapter hands core, its body not yet read (or as its framework read it). */
export interface ReceiverRequest {
  readonly method: string;
  /** Path and query ("/webhooks?x=1"), or an absolute URL. */
  readonly url: string;
  readonly headers: ReceiverHeaders;
  readonly body?: BodyStream | string | Uint8Array | null;
  /** The environment the secret comes from per request (a Worker's bindings): see `requestEnv`. */
  readonly env?: EnvRecord;
}

/** The reply, for the adapter to send as it is. */
export interface ReceiverResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What `health()` found: `ok` when every check is. */
export interface HealthReport {
  ok: boolean;
  /** One check per store, journal and queue the receiver uses, by name ("dedupe", "queue", …). */
  checks: Record<string, { ok: boolean; message?: string }>;
}

export interface CloseOptions {
  /** How long reports in flight are waited for, in ms. Default 9000 (SIGKILL comes at 10 s). */
  timeoutMs?: number;
}

/** Reads one header by its lowercase name, whatever case the record's keys use. */
export function headerOf(headers: ReceiverHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key =
    headers[name] !== undefined ? name : Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return typeof value === "string" || value === undefined ? value : value.join(", ");
}

/** A web Request's body for core to read: its stream, or with a declared length `arrayBuffer()`. */
export function webBody(request: Request): BodyStream | null {
  if (request.headers.get("content-length") === null) return request.body;
  // `arrayBuffer()`: @hono/node-server serves it far faster than its stream. An iterator written
  // out: a generator cost 10 µs a request there (server CPU per DLR 42-44 µs against 31-34).
  return {
    [Symbol.asyncIterator]: () => {
      let read = false;
      return {
        next: async (): Promise<IteratorResult<Uint8Array>> => {
          if (read) return { done: true, value: undefined };
          read = true;
          return { done: false, value: new Uint8Array(await request.arrayBuffer()) };
        },
      };
    },
  };
}
