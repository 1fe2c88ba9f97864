// A valid report to its outcome: queued, or claimed in the dedupe store, run by its handler within
// the deadline and marked done (or released); a 2xx (the provider's only success) only once the
// handler or the queue succeeded, else the ReportkitError to answer with. The handler's `ctx` (and
// a store's `scope()`, `ctx.tx`) is its own: what they write changes no reply, journal or measure.
import { withoutCredentials } from "@reportkit/wire/internal";
import type { ReceiverHeaders, ReceiverResponse } from "../base/types.js";
import { answeredWithin, within } from "../base/within.js";
import {
  asReportkitError,
  completeFailed,
  dedupeUnavailable,
  handlerFailed,
  handlerTimeout,
  inProgress,
  noHandler,
  notRecorded,
  parked,
  queueUnavailable,
  type ReportkitError,
} from "../reply/errors.js";
import { DUPLICATE, OK, QUEUED } from "../reply/replies.js";
import type { Report } from "../report/schemas.js";
import type { DedupeStore } from "../store-kit/dedupe-store.js";
import type { ReportQueue } from "../store-kit/report-queue.js";
import type { ReportSpan } from "../store-kit/telemetry.js";
import type { Attempt } from "./keep-failure.js";
import { isRetryLater } from "./retry-later.js";

/** A handler as the receiver calls it: the report of its kind, and the request's context. */
export type AnyHandler = (report: never, ctx: HandlerContext) => unknown;

/** The report handlers a receiver has so far, by kind: from its options, or attached later. */
export type KindHandlers = Partial<Record<Report["type"], AnyHandler>>;

interface RunSettings {
  readonly dedupe: DedupeStore | undefined;
  readonly queue: ReportQueue | undefined;
  /** Undefined: the handler is waited for however long it takes. */
  readonly deadlineMs: number | undefined;
  readonly handlers: KindHandlers;
  /** Told once per kind that a report of it was acknowledged without a handler. */
  readonly unhandled: (kind: Report["type"]) => void;
}

/** How a report ended: the reply, and what to tell `onError` and the log besides (if anything). */
interface RunOutcome {
  readonly response: ReceiverResponse;
  /** The report was answered 2xx, but the store could not record it (a retry may run it again). */
  readonly notice?: ReportkitError;
}

type Claim = { readonly store: DedupeStore; readonly key: string; readonly owner: string };

// Owner ids for dedupe claims, unique across processes (the store may be shared): one random id
// per process, drawn at its first claim (Workers allow no random values while a module loads).
let instance: string | undefined;
let claims = 0;

export async function runReport(
  report: Report,
  ctx: HandlerContext,
  span: ReportSpan | undefined,
  settings: RunSettings,
): Promise<RunOutcome> {
  const { dedupe, queue, handlers, deadlineMs } = settings;
  const key = ctx.dedupeKey;
  if (queue !== undefined) {
    // Queue mode: 202 once the queue holds the report, 503 if it cannot take it in time.
    try {
      const trace = span?.carrier();
      const added = queue.enqueue(report, key, trace === undefined ? undefined : { trace });
      await (deadlineMs === undefined ? added : answeredWithin(added, deadlineMs));
    } catch (cause) {
      throw queueUnavailable(cause);
    }
    return { response: QUEUED };
  }
  const handler = handlers[report.type];
  if (handler === undefined) {
    // Before any handler is attached the app is still starting: the provider retries later.
    // Once one is, a kind nobody handles is acknowledged, as the app chose.
    if (Object.values(handlers).every((h) => h === undefined)) throw noHandler();
    settings.unhandled(report.type);
    return { response: OK };
  }
  // A store whose claim opens a transaction: a report without a key gets a key of its own.
  const scoped = dedupe?.scope !== undefined;
  if (dedupe === undefined || (key === undefined && !scoped)) {
    return run(handler, report, ctx, span, deadlineMs, undefined);
  }
  instance ??= globalThis.crypto.randomUUID();
  claims += 1;
  const owner = `${instance}:${claims}`;
  const claim: Claim = { store: dedupe, key: key ?? `once:${owner}`, owner };
  let claimed: Awaited<ReturnType<DedupeStore["claim"]>>;
  try {
    claimed = await dedupe.claim(claim.key, owner);
  } catch (cause) {
    throw dedupeUnavailable(cause);
  }
  if (claimed === "done") return { response: DUPLICATE };
  if (claimed !== "claimed") throw inProgress();
  if (scoped) {
    try {
      addScope(ctx, dedupe.scope?.(owner), dedupe.name === undefined ? "" : `"${dedupe.name}"`);
    } catch (cause) {
      // The store's fault, not the handler's: released, and answered as reportkit's own.
      release(claim);
      throw asReportkitError(cause);
    }
  }
  return run(handler, report, ctx, span, deadlineMs, claim);
}

/**
 * Runs the handler, its claim marked done or freed. Past the deadline, 503 `handler_timeout`: its
 * late outcome still marks or frees the claim, but is never answered, journaled or told.
 */
async function run(
  handler: AnyHandler,
  report: Report,
  ctx: HandlerContext,
  span: ReportSpan | undefined,
  deadlineMs: number | undefined,
  claim: Claim | undefined,
): Promise<RunOutcome> {
  const started = performance.now();
  const call = () => (handler as (report: Report, ctx: HandlerContext) => unknown)(report, ctx);
  // A handler that throws at once fails as one whose promise rejects.
  const attempt = new Promise((resolve) => resolve(span === undefined ? call() : span.run(call)));
  const took = () => span?.handlerDuration((performance.now() - started) / 1000);
  const settled = attempt.then(
    async (): Promise<RunOutcome> => {
      took();
      if (claim === undefined) return { response: OK };
      try {
        await claim.store.complete(claim.key, claim.owner);
        return { response: OK };
      } catch (cause) {
        // 200 whatever the store says, or a retry would run the handler again; unless the
        // store's `complete` is the commit of the handler's own writes.
        if (claim.store.scope !== undefined) throw notRecorded(cause);
        return { response: OK, notice: completeFailed(cause) };
      }
    },
    (cause: unknown): never => {
      took();
      if (claim !== undefined) release(claim);
      throw isRetryLater(cause) ? parked(cause) : handlerFailed(cause);
    },
  );
  if (deadlineMs === undefined) return settled;
  return within(settled, deadlineMs, () => {
    throw handlerTimeout();
  });
}

/** Frees a claim for the provider's retry; if the store cannot be told, the lease runs out. */
function release({ store, key, owner }: Claim): void {
  try {
    Promise.resolve(store.release(key, owner)).catch(() => {});
  } catch {}
}

// ---- The handler's ctx -----------------------------------------------------------------

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

type ContextOf = Pick<Attempt, "request" | "dedupeKey"> & { readonly receivedAt: number };

/** Read-only views of the request; the URL and the headers are redacted on first read. */
export class HandlerContext implements ReportContext {
  readonly #of: ContextOf;
  readonly #credentialHeader: string;
  #url: string | undefined;
  #headers: Headers | undefined;

  /** `of`: the request's attempt itself, read when a field is (no copy per report). */
  constructor(of: ContextOf, credentialHeader: string) {
    this.#of = of;
    this.#credentialHeader = credentialHeader;
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
    this.#headers ??= redactedHeaders(this.#of.request.headers, this.#credentialHeader);
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
