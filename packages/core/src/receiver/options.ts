// A receiver's options, in groups, and the receiver's own type; check-options.ts checks them.
// Where a receiver is mounted (a path, a framework's settings) is its adapter's business.
import type { ComposedTemplate } from "@reportkit/wire";
import type {
  CloseOptions,
  EnvRecord,
  HealthReport,
  ReceiverRequest,
  ReceiverResponse,
} from "../base/types.js";
import type { ComposedCallReport, ComposedDeliveryReport } from "../composed/composed-types.js";
import type { ReceiverLogger } from "../process/receiver-log.js";
import type { ReportContext } from "../process/run-handler.js";
import type { ReportkitError } from "../reply/errors.js";
import type {
  CallReport,
  DeliveryReport,
  EventReport,
  Report,
  UnsubscribeReport,
} from "../report/schemas.js";
import type { ChallengeResponder, SecretOption } from "../request/authenticate.js";
import type { DedupeStore, FailureJournal } from "../store-kit/dedupe-store.js";
import type { ReportQueue } from "../store-kit/report-queue.js";
import type { Telemetry } from "../store-kit/telemetry.js";

/** A report handler: 200 once it returns or resolves; `ctx` has what the store adds (`tx`). */
export type Handler<R, S extends object = object> = (report: R, ctx: ContextWith<S>) => unknown;

/** `ctx`: the request's context, and what the dedupe store adds to it (nothing by default). */
export type ContextWith<S extends object> = object extends S ? ReportContext : ReportContext & S;

/** The report `onDelivery` receives: typed by its template, if any. */
export type DeliveryReportFor<T> = T extends ComposedTemplate
  ? ComposedDeliveryReport<T>
  : DeliveryReport;
/** The report `onCall` receives: typed by the template when there is one. */
export type CallReportFor<T> = T extends ComposedTemplate ? ComposedCallReport<T> : CallReport;
/** Any report the receiver hands a handler (or the `dedupe.key` function). */
export type ReportFor<T> = T extends ComposedTemplate
  ? DeliveryReportFor<T> | CallReportFor<T>
  : Report;

/** The observer of refusals and failures: it cannot change the reply. */
export type ErrorHandler = (error: ReportkitError, ctx: ReportContext) => unknown;

/** The secret sent in a header of its own (composed webhooks may send e.g. `x-api-key`). */
export interface SecretInHeader {
  /** The secret: one string, several (during a rotation), or a function that decides. */
  value: SecretOption;
  /** The header whose whole value is the secret, instead of `Authorization: Bearer <secret>`. */
  header: string;
}

/** The webhook's verification handshake (`POST <url>?token=<token>` with a challenge). */
export interface VerificationOptions {
  /**
   * The webhook's token (the provider's "validation key"): a verification carrying it is answered
   * (without a token, one carrying the secret). Default: REPORTKIT_VERIFICATION_TOKEN in adapters.
   */
  token?: string;
  /**
   * A responder of your own instead of the provider's handshake: it sees every authenticated
   * request's decoded body, and answers (`{ status, body, headers }`) or returns undefined.
   */
  respond?: ChallengeResponder;
}

/** The bounds of a request's body. */
export interface BodyOptions {
  /** Largest body accepted, in bytes. Default 65536. */
  maxBytes?: number;
  /**
   * How long the body may take to arrive, in ms: past it, 408 `request_timeout` and the
   * connection closed, so a client sending a byte a second cannot hold one (Node's own
   * `requestTimeout` is 300 s). Default 5000: a report is a few hundred bytes.
   */
  timeoutMs?: number;
}

/** Deduplication: where processed reports are remembered, and what a report's identity is. */
export interface DedupeOptions<S extends object = object> {
  /** Default `memoryDedupe()`; for several instances `redisDedupe()` or `postgresInbox()`. */
  store?: DedupeStore<S> | false;
  /** A report's identity (and job id); default `defaultDedupeKey`. Undefined: not deduplicated. */
  key?(report: Report): string | undefined;
}

/**
 * A receiver's options. Options that contradict each other (`queue` with handlers, say) and
 * names the receiver does not know are refused at construction, saying what to change.
 */
export interface ReceiverOptions<
  T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
> {
  /**
   * The webhook's secret, the bearer of every push: one, several (a rotation) or a function;
   * `{ value, header }` in a header of its own. Default REPORTKIT_SECRET in adapters; `false`
   * accepts requests without any credential (not recommended).
   */
  secret?: SecretOption | SecretInHeader | false;
  /** The webhook's verification handshake: its token, or a responder of your own; `false` for none. */
  verification?: VerificationOptions | false;
  /** The body's size and time limits. */
  body?: BodyOptions;
  /**
   * Remembers processed reports, so a retry gets 200 `duplicate` without the handler: a store,
   * `{ store, key }`, or `false`. In queue mode only `{ key }`: the queue deduplicates by it.
   */
  dedupe?: DedupeStore<S> | false | DedupeOptions<S>;
  /**
   * Queue mode: each report is handed to this queue (`bullmqQueue`, `pgBossQueue`) and answered
   * 202 once stored; a worker runs the handlers, so the receiver takes no handler nor store.
   */
  queue?: ReportQueue;
  /**
   * Where reports that could not be processed are kept for `reportkit replay`. Default: the
   * dedupe store's journal, where it has one; `false` keeps nothing.
   */
  journal?: FailureJournal | false;
  /** Traces and metrics (`otelTelemetry()` from @reportkit/otel, or any `Telemetry`). */
  telemetry?: Telemetry;
  /**
   * Where failures (each), refusals and warnings (once a minute a cause) go. Default `console`;
   * `false` for none. `onError` does not replace it.
   */
  logger?: ReceiverLogger | false;
  /**
   * How long the provider waits, less a margin (it gives up after 10 s): past it, 503
   * `handler_timeout` while the handler runs on. Default 8000 ms; `false` waits however long.
   */
  deadlineMs?: number | false;
  /** The composed webhook's template, pasted from the provider's panel: its own keys are read. */
  composed?: T;
  /** IANA zone of wall-clock times without one. Default "Asia/Kolkata"; unix fields always win. */
  timeZone?: string;
  /** Called with each SMS delivery report; the provider gets 200 once it returns/resolves. */
  onDelivery?: T extends { type: "call" } ? never : Handler<DeliveryReportFor<T>, S>;
  /** Called with each call report (outbound-dial and Click2Call). */
  onCall?: T extends { type: "delivery" } ? never : Handler<CallReportFor<T>, S>;
  /** Called with each opt-out: the number may no longer be messaged (by that sender, or at all). */
  onUnsubscribe?: Handler<UnsubscribeReport, S>;
  /** Called with each other event pushed to the webhook (WhatsApp, RCS, Viber, VMN, contacts, links). */
  onEvent?: Handler<EventReport, S>;
  /** Observes every refused request and failed handler. Cannot change the reply. */
  onError?: ErrorHandler;
}

/** The handler options, by the kind of report each takes. */
export const HANDLER_OPTIONS = {
  delivery: "onDelivery",
  call: "onCall",
  unsubscribe: "onUnsubscribe",
  event: "onEvent",
} as const satisfies Record<Report["type"], keyof ReceiverOptions>;

/** The receiver's methods that attach a handler, as adapters' handlers carry them too. */
export const ATTACH_METHODS = [...Object.values(HANDLER_OPTIONS), "onError"] as const;

export type HandlerOption = (typeof ATTACH_METHODS)[number];

/** The receiver: what adapters call, and what apps attach their handlers to. */
export interface Receiver<
  T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
> {
  /** Framework-neutral: adapters hand it one request and send its reply as it is. Never rejects. */
  handle(request: ReceiverRequest): Promise<ReceiverResponse>;
  /** Web standard, for any fetch-style server. `env`: a Worker's bindings, where the secret is. */
  fetch(request: Request, env?: EnvRecord): Promise<Response>;
  /**
   * Attaches the SMS delivery report handler (one per receiver). Until a handler of any kind is,
   * reports get 503 `no_handler` (none lost while the app starts); then a kind none takes, 200.
   */
  onDelivery(handler: Handler<DeliveryReportFor<T>, S>): this;
  /** Attaches the call report handler (one per receiver). */
  onCall(handler: Handler<CallReportFor<T>, S>): this;
  /** Attaches the opt-out handler (one per receiver). */
  onUnsubscribe(handler: Handler<UnsubscribeReport, S>): this;
  /** Attaches the handler of other events (one per receiver). */
  onEvent(handler: Handler<EventReport, S>): this;
  /** Attaches the observer of refusals and failures (one per receiver); the log goes on. */
  onError(handler: ErrorHandler): this;
  /** One round trip (at most 2 s) to each store, journal and queue it uses. Never rejects. */
  health(): Promise<HealthReport>;
  /**
   * Graceful shutdown: new reports get 503 `shutting_down`, those in flight are waited for up to
   * `timeoutMs`, then the store and queue close what they created. Never rejects.
   * @throws TypeError at once for a `timeoutMs` that is not a number of milliseconds
   */
  close(options?: CloseOptions): Promise<void>;
}
