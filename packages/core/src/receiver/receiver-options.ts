// What a receiver does, as its options say it: the types only. They are checked once, at
// construction, by validate-options.ts. Where a receiver is mounted (a path, a framework's own
// settings) is its adapter's business, never an option here.
import type { ComposedTemplate } from "@reportkit/wire";
import type { ComposedCallReport, ComposedDeliveryReport } from "../composed/composed-types.js";
import type { ReportContext } from "../process/handler-context.js";
import type { ReportkitError } from "../reply/errors.js";
import type { ReceiverLogger } from "../reply/receiver-log.js";
import type { CallReport, DeliveryReport } from "../report/schemas.js";
import type { ChallengeOption } from "../request/challenge-option.js";
import type { SecretOption } from "../request/check-bearer.js";
import type { DedupeStore, FailureJournal } from "../store-kit/dedupe-store.js";
import type { ReportQueue } from "../store-kit/report-queue.js";
import type { Telemetry } from "../store-kit/telemetry.js";

/**
 * A report handler: the provider gets 200 once it returns or resolves. `ctx` is the request's
 * context, plus what the dedupe store gives a claimed report (`ctx.tx` with a Postgres inbox).
 */
export type Handler<R, S extends object = object> = (report: R, ctx: ContextWith<S>) => unknown;

/** `ctx`: the request's context, and what the dedupe store adds to it (nothing by default). */
export type ContextWith<S extends object> = object extends S ? ReportContext : ReportContext & S;

/** The report `onDelivery` receives: typed by the template when there is one. */
export type DeliveryReportFor<T> = T extends ComposedTemplate
  ? ComposedDeliveryReport<T>
  : DeliveryReport;
/** The report `onCall` receives: typed by the template when there is one. */
export type CallReportFor<T> = T extends ComposedTemplate ? ComposedCallReport<T> : CallReport;

export type ErrorHandler = (error: ReportkitError, ctx: ReportContext) => unknown;

/**
 * A receiver's options. Options that contradict each other are refused at construction with
 * what to change (`auth: false` with a `token` or a `header`; `queue` with handlers or `dedupe`);
 * an option name the receiver does not know is refused too, with the nearest it does.
 */
export interface ReceiverOptions<
  T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
> {
  /**
   * The webhook's secret, which the provider sends as the bearer of every push (`Authorization:
   * Bearer <secret>`): one string, several (during a rotation), or a function that decides.
   * Required unless `auth: false` (adapters read REPORTKIT_SECRET).
   */
  secret?: SecretOption;
  /** @deprecated The old name of `secret` (a line at start-up says to rename it). */
  token?: SecretOption;
  /**
   * The webhook's token, which the provider calls its validation key: with it, the webhook's
   * verification request is answered when it carries this key, with or without a secret.
   * Without it, when it carries one of the receiver's secrets. Adapters read
   * REPORTKIT_VERIFICATION_TOKEN.
   */
  verificationToken?: string;
  /**
   * A header whose whole value is the secret (composed webhooks may send e.g. `x-api-key`),
   * instead of `Authorization: Bearer <secret>`.
   */
  header?: string;
  /** `false` accepts requests without any credential (no `secret`, no `header`). Not recommended. */
  auth?: false;
  /**
   * Called with each SMS delivery report; the provider gets 200 once it returns/resolves. May
   * also be attached later with `receiver.onDelivery(fn)`.
   */
  onDelivery?: T extends { type: "call" } ? never : Handler<DeliveryReportFor<T>, S>;
  /** Called with each call report; the provider gets 200 once it returns/resolves. */
  onCall?: T extends { type: "delivery" } ? never : Handler<CallReportFor<T>, S>;
  /**
   * Remembers processed reports so a provider retry is acknowledged (200 `duplicate`) without
   * running the handler again. Default: `memoryDedupe()`, this process's memory; for several
   * instances `redisDedupe()` from @reportkit/redis, or `postgresInbox()` from
   * @reportkit/postgres; `false` turns it off. Not in queue mode (the queue deduplicates).
   */
  dedupe?: DedupeStore<S> | false;
  /**
   * Queue mode: each report is handed to this queue (BullMQ: `bullmqQueue` from
   * @reportkit/bullmq) and answered 202 once stored; a worker runs the handlers, and the queue's
   * job ids deduplicate. No handler and no `dedupe` may be given to the receiver then.
   */
  queue?: ReportQueue;
  /**
   * Observes every refused request and failed handler. Cannot change the reply, and does not
   * replace the log (`logger: false` does).
   */
  onError?: ErrorHandler;
  /**
   * Where the receiver logs handler failures (each) and refusals (at most once a minute per
   * cause). Default `console`; `false` for silence.
   */
  logger?: ReceiverLogger | false;
  /**
   * Where reports that could not be processed are kept (a handler that failed or timed out, a
   * report refused as invalid after authentication), for `reportkit replay`. Default: the
   * dedupe store's own journal, where it has one (`postgresInbox`, `redisDedupe`); `false`
   * keeps nothing.
   */
  journal?: FailureJournal | false;
  /**
   * Traces and metrics (`otelTelemetry()` from @reportkit/otel, or any `Telemetry`). Without
   * it nothing is measured, at no cost.
   */
  telemetry?: Telemetry;
  /**
   * A report's identity for `dedupe` (and the queue's job id). Default `defaultDedupeKey`:
   * delivery id + status; call mid + to + status + start. Return undefined to not deduplicate.
   */
  dedupeKey?: (report: DeliveryReportFor<T> | CallReportFor<T>) => string | undefined;
  /**
   * How long the provider waits for an answer, less a margin: a handler still running then gets
   * 503 `handler_timeout` (it keeps running; a retry finds its outcome). Default 8000 ms
   * (senders give up after about 10 s); `false` waits for the handler however long it takes.
   */
  deadlineMs?: number | false;
  /**
   * The composed webhook's template, pasted from the provider's panel: the receiver then reads
   * the customer's own keys from the query, path and body, with the template's method.
   */
  composed?: T;
  /**
   * IANA zone for wall-clock times that carry none ("2021-04-09 16:27:51"). Default
   * `PROVIDER_TIME_ZONE` ("Asia/Kolkata"), the zone the provider, the sandbox and the CLI
   * write them in. Unix fields, where a report has them, always win.
   */
  timeZone?: string;
  /** Largest body accepted, in bytes. Default 65536. */
  maxBodyBytes?: number;
  /**
   * How long the body may take to arrive once the request is in, in ms: past it the request
   * gets 408 `request_timeout` and its connection is closed, so a client sending a byte a second
   * cannot hold a connection (Node's own limit, `requestTimeout`, is 300 s). Default 5000: a
   * report is a few hundred bytes and arrives with its headers.
   */
  bodyTimeoutMs?: number;
  /**
   * The webhook's verification handshake, answered before any report is parsed (and never
   * marking anything processed): a POST whose JSON body has a `challenge` and a `validation_key`
   * (or a `token` query parameter) gets 200 `{"challenge": …}` when its key is
   * `verificationToken` (or, without one, when it carries a secret), 401 otherwise. `false`
   * turns it off; a function answers instead (return undefined for a report).
   */
  challenge?: ChallengeOption;
}

/** Every option name a receiver takes: anything else is refused at construction. */
export const RECEIVER_OPTION_NAMES: ReadonlySet<string> = new Set([
  "secret",
  "token",
  "verificationToken",
  "header",
  "auth",
  "onDelivery",
  "onCall",
  "dedupe",
  "queue",
  "onError",
  "logger",
  "journal",
  "telemetry",
  "dedupeKey",
  "deadlineMs",
  "composed",
  "timeZone",
  "maxBodyBytes",
  "bodyTimeoutMs",
  "challenge",
] satisfies (keyof ReceiverOptions<ComposedTemplate | undefined>)[]);
