import { type ComposedTemplate, PROVIDER_TIME_ZONE } from "@reportkit/wire";
import type { BodyFormat } from "../body/media-type.js";
import { type CompiledTemplate, compileTemplate } from "../composed/compile-template.js";
import type { ComposedCallReport, ComposedDeliveryReport } from "../composed/composed-types.js";
import type { ReportkitError } from "../reply/errors.js";
import type { ReceiverLogger } from "../reply/receiver-log.js";
import { defaultDedupeKey } from "../report/dedupe-key.js";
import type { CallReport, DeliveryReport, Report } from "../report/schemas.js";
import { type ChallengeOption, checkChallengeOption } from "../request/challenge.js";
import { type BearerCheck, checkBearer, type TokenOption } from "../request/check-bearer.js";
import type { ReportContext } from "../request/context.js";
import type { DedupeStore, FailureJournal } from "../store-kit/dedupe-store.js";
import type { ReportQueue } from "../store-kit/report-queue.js";
import { dedupeStore, failureJournal, telemetryOf } from "../store-kit/store-options.js";
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

export interface ReceiverOptions<
  T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
> {
  /**
   * The bearer token the provider sends: one string, several (during a rotation), or a
   * function that decides. Required unless `auth: false`.
   */
  token?: TokenOption;
  /** Pass `false` to accept requests without any credential. Not recommended. */
  auth?: false;
  /**
   * A header whose whole value is the token (composed webhooks may send e.g. `x-api-key`),
   * instead of `Authorization: Bearer <token>`.
   */
  header?: string;
  /**
   * Called with each SMS delivery report; the provider gets 200 once it returns/resolves. May
   * also be attached later with `receiver.onDelivery(fn)`.
   */
  onDelivery?: T extends { type: "call" } ? never : Handler<DeliveryReportFor<T>, S>;
  /** Called with each call report; the provider gets 200 once it returns/resolves. */
  onCall?: T extends { type: "delivery" } ? never : Handler<CallReportFor<T>, S>;
  /**
   * Observes every refused request and failed handler. Cannot change the reply. Without it the
   * receiver logs them (see `logger`).
   */
  onError?: ErrorHandler;
  /**
   * Where a receiver without `onError` logs handler failures (each) and refusals (at most once
   * a minute per code). Default `console`; `false` for silence. Given explicitly, it logs even
   * alongside `onError`.
   */
  logger?: ReceiverLogger | false;
  /**
   * Remembers processed reports so a provider retry is acknowledged (200 `duplicate`) without
   * running the handler again. Default: `memoryDedupe()`, this process's memory; for several
   * instances use `redisDedupe()` from @reportkit/redis; `false` turns it off.
   */
  dedupe?: DedupeStore<S> | false;
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
   * Queue mode: each report is handed to this queue (BullMQ: `bullmqQueue` from
   * @reportkit/bullmq) and answered 202 once stored; a worker runs the handlers. No handler may
   * be given to the receiver then.
   */
  queue?: ReportQueue;
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
   * The webhook's verification challenge, answered before any report is authenticated (and
   * never marking anything processed). Default: a GET to the receiver's path with a
   * `challenge` query parameter and `token` equal to the receiver's token gets 200 text/plain
   * with the challenge's value (401 for a wrong or missing token). `false` turns it off; a
   * function answers whatever the provider turns out to send (return undefined for a report).
   */
  challenge?: ChallengeOption;
}

export type ErrorHandler = (error: ReportkitError, ctx: ReportContext) => unknown;
type KeyOf = (report: Report) => string | undefined;

/** The largest body a receiver takes unless `maxBodyBytes` says otherwise. */
export const DEFAULT_MAX_BODY_BYTES = 65_536;
const DEFAULT_DEADLINE_MS = 8000;
const DEFAULT_BODY_TIMEOUT_MS = 5000;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

export type Template = CompiledTemplate & { readsBody: boolean; format: BodyFormat };

export interface Config {
  template: Template | undefined;
  check: BearerCheck | undefined;
  credentialHeader: string;
  /** Whether the credential is an `Authorization: Bearer` value (no `header` option). */
  bearer: boolean;
  onDelivery: Handler<DeliveryReport> | undefined;
  onCall: Handler<CallReport> | undefined;
  onError: ErrorHandler | undefined;
  /** Whether to log when no onError observes: undefined, the default console; false, never. */
  logger: ReceiverLogger | false | undefined;
  dedupe: DedupeStore | undefined;
  /** The `dedupeKey` option, or `defaultDedupeKey`. */
  dedupeKey: KeyOf;
  deadlineMs: number | undefined;
  bodyTimeoutMs: number;
  queue: ReportQueue | undefined;
  journal: FailureJournal | undefined;
  telemetry: Telemetry | undefined;
  timeZone: string;
  limit: number;
  /** The `challenge` option, checked: undefined for the default responder. */
  challenge: ChallengeOption | undefined;
}

/**
 * Whether options give a receiver somewhere to put reports (a handler, or a queue) without
 * anything attached later: an adapter that cannot offer attaching asks this.
 */
export function takesReports(
  options: Pick<ReceiverOptions, "onDelivery" | "onCall" | "queue">,
): boolean {
  return (
    options.onDelivery !== undefined || options.onCall !== undefined || options.queue !== undefined
  );
}

export function validateOptions(
  input: ReceiverOptions<ComposedTemplate | undefined> | undefined,
): Config {
  if (input !== undefined && (typeof input !== "object" || input === null)) {
    throw new TypeError(
      `reportkit: the receiver's options must be an object, or left out to attach handlers later, got ${input === null ? "null" : typeof input}.`,
    );
  }
  const options = input ?? {};
  const { token, auth, header, onDelivery, onCall, onError, queue, logger } = options;
  if (auth !== undefined && auth !== false) {
    throw new TypeError("reportkit: `auth` can only be `false` (to turn authentication off).");
  }
  if (auth === false && token !== undefined) {
    throw new TypeError("reportkit: pass either `token` or `auth: false`, not both.");
  }
  if (auth !== false) validateToken(token, header === undefined);
  if (
    header !== undefined &&
    (typeof header !== "string" || !HEADER_NAME.test(header.toLowerCase()))
  ) {
    throw new TypeError(
      `reportkit: \`header\` must be a header name such as "x-api-key", got ${JSON.stringify(header)}.`,
    );
  }
  for (const [name, fn] of [
    ["onDelivery", onDelivery],
    ["onCall", onCall],
    ["onError", onError],
    ["dedupeKey", options.dedupeKey],
  ] as const) {
    if (fn !== undefined && typeof fn !== "function") {
      throw new TypeError(`reportkit: \`${name}\` must be a function.`);
    }
  }
  if (queue !== undefined) {
    if (typeof queue !== "object" || queue === null || typeof queue.enqueue !== "function") {
      throw new TypeError(
        "reportkit: `queue` must be a report queue with an `enqueue(report, key)` method, such as `bullmqQueue({ connection })` from @reportkit/bullmq.",
      );
    }
    if (onDelivery !== undefined || onCall !== undefined) {
      throw new TypeError(
        "reportkit: give either `queue` (the receiver answers 202 and a worker runs the handlers: pass them to `createWorker`) or `onDelivery`/`onCall`, not both.",
      );
    }
  }
  if (
    logger !== undefined &&
    logger !== false &&
    (typeof logger !== "object" ||
      logger === null ||
      typeof logger.warn !== "function" ||
      typeof logger.error !== "function")
  ) {
    throw new TypeError(
      "reportkit: `logger` must have `warn` and `error` methods (console and pino do), or be `false`.",
    );
  }
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(limit) || limit <= 0) {
    throw new TypeError(
      `reportkit: \`maxBodyBytes\` must be a positive whole number of bytes, got ${String(options.maxBodyBytes)}.`,
    );
  }
  const credentialHeader = header?.toLowerCase() ?? "authorization";
  const compiled = options.composed === undefined ? undefined : compileTemplate(options.composed);
  const handlerFor = compiled?.type === "call" ? onCall : onDelivery;
  if (compiled !== undefined && handlerFor === undefined && (onDelivery ?? onCall) !== undefined) {
    // Its reports would all be acknowledged unhandled: lost.
    const name = compiled.type === "call" ? "onCall" : "onDelivery";
    throw new TypeError(
      `reportkit: the composed template sends ${compiled.type} reports; give \`${name}\`.`,
    );
  }
  const dedupe = queue === undefined ? dedupeStore(options.dedupe) : undefined;
  return {
    template:
      compiled === undefined
        ? undefined
        : {
            ...compiled,
            readsBody: compiled.method !== "GET" && compiled.sources.some((s) => s.from === "body"),
            // Without a Content-Type: a form can only be read as urlencoded (multipart needs a boundary).
            format: compiled.declaredFormat === "json" ? "json" : "urlencoded",
          },
    check:
      auth === false
        ? undefined
        : checkBearer(token as TokenOption, header === undefined ? undefined : credentialHeader),
    credentialHeader,
    bearer: header === undefined,
    onDelivery: onDelivery as Handler<DeliveryReport> | undefined,
    onCall: onCall as Handler<CallReport> | undefined,
    onError,
    logger,
    dedupe,
    dedupeKey: (options.dedupeKey as KeyOf | undefined) ?? defaultDedupeKey,
    deadlineMs: deadline(options.deadlineMs),
    bodyTimeoutMs: bodyTimeout(options.bodyTimeoutMs),
    queue,
    journal: failureJournal(options.journal, dedupe),
    telemetry: telemetryOf(options.telemetry),
    timeZone: options.timeZone ?? PROVIDER_TIME_ZONE,
    limit,
    challenge: checkChallengeOption(options.challenge),
  };
}

function deadline(deadlineMs: number | false | undefined): number | undefined {
  if (deadlineMs === false) return undefined;
  if (deadlineMs === undefined) return DEFAULT_DEADLINE_MS;
  // setTimeout takes at most 2^31 - 1 ms.
  if (!Number.isSafeInteger(deadlineMs) || deadlineMs <= 0 || deadlineMs > 2_147_483_647) {
    throw new TypeError(
      `reportkit: \`deadlineMs\` must be a positive whole number of milliseconds (default 8000), or \`false\` for none, got ${String(deadlineMs)}.`,
    );
  }
  return deadlineMs;
}

function bodyTimeout(bodyTimeoutMs: number | undefined): number {
  if (bodyTimeoutMs === undefined) return DEFAULT_BODY_TIMEOUT_MS;
  if (!Number.isSafeInteger(bodyTimeoutMs) || bodyTimeoutMs <= 0 || bodyTimeoutMs > 2_147_483_647) {
    throw new TypeError(
      `reportkit: \`bodyTimeoutMs\` must be a positive whole number of milliseconds (default ${DEFAULT_BODY_TIMEOUT_MS}), got ${String(bodyTimeoutMs)}.`,
    );
  }
  return bodyTimeoutMs;
}

/**
 * The credential check for `token`, validated first (a token no request could ever match
 * throws): a Bearer value, or with `bearer` false the whole value of `credentialHeader`.
 */
export function tokenCheck(
  token: TokenOption,
  bearer: boolean,
  credentialHeader: string,
): BearerCheck {
  validateToken(token, bearer);
  return checkBearer(token, bearer ? undefined : credentialHeader);
}

function validateToken(token: unknown, bearer: boolean): void {
  const hint =
    "Pass the token the provider sends (`token`, or the REPORTKIT_TOKEN environment variable where the adapter reads it), several during a rotation, or a function; or `auth: false` to accept unauthenticated requests (not recommended).";
  if (token === undefined || token === null) {
    throw new TypeError(`reportkit: no token given. ${hint}`);
  }
  if (typeof token === "function") return;
  const list = typeof token === "string" ? [token] : token;
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError(
      `reportkit: \`token\` must be a string, an array of strings or a function. ${hint}`,
    );
  }
  list.forEach((t: unknown, i: number) => {
    const where = Array.isArray(token) ? `token[${i}]` : "token";
    if (typeof t !== "string" || t.trim() === "") {
      throw new TypeError(`reportkit: \`${where}\` is empty or not a string. ${hint}`);
    }
    const problem = unmatchable(t, bearer);
    if (problem !== undefined) {
      throw new TypeError(
        `reportkit: \`${where}\` (or REPORTKIT_TOKEN) ${problem}, so no request could ever match it and every report would get 401. Use the token exactly as the provider sends it: visible ASCII characters only.`,
      );
    }
  });
}

/**
 * Why a token can never match a credential a request carries, if it can't: HTTP trims a header
 * value's surrounding whitespace, a Bearer value ends at the first space, and Node reads header
 * bytes as latin1, so a non-ASCII or control character never arrives as written.
 */
function unmatchable(token: string, bearer: boolean): string | undefined {
  if (token !== token.trim()) return "has whitespace around it";
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c === 0x20 || c === 0x09) {
      if (bearer) return `has a space at character ${i + 1}`;
    } else if (c < 0x21 || c === 0x7f) return `has a control character at character ${i + 1}`;
    else if (c > 0x7e) return `has a non-ASCII character at character ${i + 1}`;
  }
  // The Bearer reader drops one trailing comma (the provider's documented curl sends one).
  if (bearer && token.endsWith(",")) return "ends with a comma, which the Bearer reader drops";
  return undefined;
}
