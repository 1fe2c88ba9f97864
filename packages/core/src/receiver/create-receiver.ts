// The receiver: one request read top to bottom in `handle`, each step a function of the module
// of its job that returns here; every failure of any step becomes its reply in `refuse`.
import type { ComposedTemplate } from "@reportkit/wire";
import type { EnvRecord, ReceiverRequest, ReceiverResponse } from "../base/types.js";
import { headerOf, webBody } from "../base/types.js";
import { keepPromises, readComposed } from "../composed/read-composed.js";
import { type Attempt as JournalAttempt, keepFailure } from "../process/keep-failure.js";
import { type AnyHandler, HandlerContext, runReport } from "../process/run-handler.js";
import { ruleOf } from "../reply/error-table.js";
import {
  asReportkitError,
  methodNotAllowed,
  ReportkitError,
  shuttingDown,
  unauthorized,
} from "../reply/errors.js";
import { closingConnection, DUPLICATE, errorResponse, QUEUED } from "../reply/replies.js";
import { parseWith } from "../report/parse-report.js";
import type { Report } from "../report/schemas.js";
import { answerHandshake, authenticate } from "../request/authenticate.js";
import { bodyFormat, decodeBody, readBody } from "../request/read-body.js";
import type { ReportSpan } from "../store-kit/telemetry.js";
import { type Config, checkOptions } from "./check-options.js";
import { lifecycleOf } from "./lifecycle.js";
import {
  ATTACH_METHODS,
  HANDLER_OPTIONS,
  type HandlerOption,
  type Receiver,
  type ReceiverOptions,
} from "./options.js";

/** The most of a refused, unread body the server reads and drops to keep its connection: 64 KiB. */
const DRAIN_BYTES = 65_536;
/** The most of a body read from a request that carries only the verification token. */
const HANDSHAKE_BYTES = 8192;
/** Statuses whose response has no body (`new Response` refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

/** What the receiver knows of one request while it answers it; never shown to handlers. */
interface Attempt extends JournalAttempt {
  readonly receivedAt: number;
  /** Reading the body began: a refusal from now on leaves nothing unread to drop. */
  reading?: boolean;
  /** Recognised as the webhook's verification (a telemetry that fails on it: still one). */
  verification?: boolean;
  span?: ReportSpan;
  ctx?: HandlerContext;
}

/**
 * Creates the receiver: its `handle` (or `fetch`) authenticates, reads, validates and dispatches
 * one pushed report, and answers 200 only once the handler succeeded, so a failure is retried by
 * the provider; a retry of a report already processed gets 200 `duplicate`, the handler not run.
 *
 * @example
 * const receiver = createReceiver({ secret: process.env.REPORTKIT_SECRET })
 *   .onDelivery((report) => console.log(report.id, report.status, report.deliveredAt));
 * export default { fetch: (request: Request) => receiver.fetch(request) };
 */
export function createReceiver<
  const T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
>(options?: ReceiverOptions<T, S>): Receiver<T, S> {
  return receiverOf(
    checkOptions(options as unknown as ReceiverOptions<ComposedTemplate | undefined>),
  );
}

/** A receiver of a checked configuration, with `say` for its adapter (see adapterReceiver). */
export function receiverOf<T extends ComposedTemplate | undefined, S extends object>(
  config: Config,
): Receiver<T, S> & { say(line: string): void } {
  const { credential, log, telemetry, template } = config;
  /** The replies not sent yet, which `close` waits for. */
  const inFlight = new Set<Promise<ReceiverResponse>>();
  const lifecycle = lifecycleOf(config, inFlight);
  const handlers = { ...config.handlers };
  let onError = config.onError;
  const allowed = template?.method ?? "POST";
  const settings = { ...config, handlers, unhandled: log.unhandled };

  /** One request, top to bottom. Never rejects: every failure is a reply. */
  async function handle(given: ReceiverRequest): Promise<ReceiverResponse> {
    const request = wellFormed(given);
    const attempt: Attempt = { request, receivedAt: Date.now() };
    try {
      if (lifecycle.closing) throw shuttingDown();
      attempt.access = await authenticate(request, credential, allowed, config.handshake);
      if (attempt.access === "token" || request.method !== allowed) {
        return await verificationOnly(attempt);
      }
      const payload = await bodyOf(attempt);
      if (config.handshake && payload !== undefined) {
        const answered = await answerHandshake(request, payload, "secret", config);
        if (answered !== undefined) return answer(attempt, answered);
      }
      const report = parsed(attempt, payload);
      // Most reports have no warning: the log is asked only when there is one.
      if (report.warnings.length > 0) log.warnings(report);
      attempt.dedupeKey = identify(report);
      // The span's status is a bounded label: an opt-out's text is none.
      const status = report.type === "unsubscribe" ? null : report.status;
      attempt.span = telemetry?.startReport(report.type, status);
      const ctx = contextOf(attempt);
      const { response, notice } = await runReport(report, ctx, attempt.span, settings);
      if (notice !== undefined) tell(notice, attempt);
      attempt.span?.end(
        response === DUPLICATE ? "duplicate" : response === QUEUED ? "queued" : "acknowledged",
      );
      return response;
    } catch (error) {
      return refuse(asReportkitError(error), attempt);
    }
  }

  async function bodyOf(attempt: Attempt): Promise<unknown> {
    if (template !== undefined && !template.readsBody) return undefined;
    const { request } = attempt;
    const format = bodyFormat(request, template?.format);
    attempt.reading = true;
    attempt.body = await readBody(request, config.body);
    return decodeBody(attempt.body, format, headerOf(request.headers, "content-type"));
  }

  /** A request that may only be the verification: its small JSON body read, else its 401 or 405. */
  async function verificationOnly(attempt: Attempt): Promise<ReceiverResponse> {
    const { request, access = "token" } = attempt;
    const refusal =
      request.method !== allowed
        ? methodNotAllowed(request.method, allowed)
        : unauthorized("missing", "an Authorization: Bearer <secret> header");
    let answered: ReceiverResponse | undefined;
    try {
      // The handshake is JSON: any other body is not read, let alone parsed.
      if (bodyFormat(request) !== "json") throw refusal;
      attempt.reading = true;
      const limits = { ...config.body, maxBytes: Math.min(config.body.maxBytes, HANDSHAKE_BYTES) };
      attempt.body = await readBody(request, limits);
      const payload = await decodeBody(attempt.body, "json", undefined);
      answered = await answerHandshake(request, payload, access, config);
    } catch (error) {
      // A body too large or too slow keeps its own reply: it closes the connection.
      const closes = error instanceof ReportkitError && error.headers.connection === "close";
      if (closes || (error instanceof ReportkitError && error.verification)) throw error;
      throw refusal;
    }
    if (answered === undefined) throw refusal;
    return answer(attempt, answered);
  }

  /** The verification, answered: counted as one, never as a report. */
  function answer(attempt: Attempt, response: ReceiverResponse): ReceiverResponse {
    attempt.verification = true;
    telemetry?.verification?.("answered");
    return response;
  }

  function parsed(attempt: Attempt, payload: unknown): Report {
    let result: ReturnType<typeof parseWith>;
    if (template === undefined) {
      result = parseWith(payload, config.readWallClock);
    } else {
      const { fields, raw } = readComposed(template, attempt.request.url, payload);
      result = parseWith(fields, config.readWallClock, template.type);
      if (result.ok) keepPromises(template, result.report, raw);
    }
    // Refused or not, known for what it is: the journal says which kind it was.
    attempt.kind = result.ok ? result.report.type : result.kind;
    if (!result.ok) throw result.error;
    return result.report;
  }

  /** The report's key by the `dedupe.key` option (or the default). @throws TypeError */
  function identify(report: Report): string | undefined {
    const key = config.dedupeKey(report);
    if (key === undefined || (typeof key === "string" && key !== "")) return key;
    throw new TypeError(
      `reportkit: \`dedupe.key\` must return a non-empty string, or undefined to not deduplicate the report; it returned ${JSON.stringify(key)}.`,
    );
  }

  function contextOf(attempt: Attempt): HandlerContext {
    attempt.ctx ??= new HandlerContext(attempt, credential.header);
    return attempt.ctx;
  }

  /** `onError` (an observer: its failure changes nothing) and the log are told. */
  function tell(error: ReportkitError, attempt: Attempt): void {
    if (onError !== undefined) {
      try {
        Promise.resolve(onError(error, contextOf(attempt))).catch(() => {});
      } catch {}
    }
    log.error(error, attempt.dedupeKey);
  }

  /** The error's reply, once telemetry, onError, the log and the journal were told. */
  async function refuse(error: ReportkitError, attempt: Attempt): Promise<ReceiverResponse> {
    const rule = ruleOf(error.code);
    if (attempt.span !== undefined) {
      // An attempt still running elsewhere is no error of this one.
      attempt.span.end(rule.outcome, rule.outcome === "in_progress" ? undefined : error.code);
    } else if (error.verification || attempt.verification) {
      telemetry?.verification?.("refused");
    } else {
      telemetry?.refused(error.code, attempt.kind);
    }
    tell(error, attempt);
    if (config.journal !== undefined) {
      const told = (failure: ReportkitError) => log.error(failure, attempt.dedupeKey);
      await keepFailure(config.journal, error, attempt, config.redaction, told);
    }
    const response = errorResponse(error);
    const { body, headers } = attempt.request;
    const unread = !attempt.reading && body !== null && typeof body !== "string";
    if (!unread || body instanceof Uint8Array) return response;
    const declared = Number(headerOf(headers, "content-length") ?? Number.NaN);
    return declared <= DRAIN_BYTES ? response : closingConnection(response);
  }

  async function fetch(request: Request, env?: EnvRecord): Promise<Response> {
    const { method, url, headers } = request;
    const body = webBody(request);
    const reply = await tracked({ method, url, headers, body, ...(env && { env }) });
    const content = NULL_BODY.has(reply.status) ? null : reply.body;
    return new Response(content, { status: reply.status, headers: reply.headers });
  }

  function attach(name: HandlerOption, handler: unknown): void {
    if (typeof handler !== "function") {
      throw new TypeError(
        `reportkit: \`${name}(handler)\` takes a function, got ${typeof handler}.`,
      );
    }
    if (name === "onError") {
      if (onError !== undefined) throw once(name);
      onError = handler as Config["onError"];
      return;
    }
    const kind = (Object.keys(HANDLER_OPTIONS) as Report["type"][]).find(
      (k) => HANDLER_OPTIONS[k] === name,
    ) as Report["type"];
    if (config.queue !== undefined) {
      throw new TypeError(
        `reportkit: this receiver is in queue mode: it answers 202 and a worker runs the handlers. Pass \`${name}\` to the queue's worker instead (\`createWorker\`).`,
      );
    }
    if (template !== undefined && kind !== template.type) {
      const sent = HANDLER_OPTIONS[template.type];
      throw new TypeError(
        `reportkit: the composed template sends ${template.type} reports, so \`${name}\` would never run; attach \`${sent}\`.`,
      );
    }
    if (handlers[kind] !== undefined) throw once(name);
    handlers[kind] = handler as AnyHandler;
  }

  /** `handle`, its reply counted in flight until sent, so that `close()` waits for it. */
  function tracked(request: ReceiverRequest): Promise<ReceiverResponse> {
    const reply = handle(request);
    inFlight.add(reply);
    const settled = () => inFlight.delete(reply);
    reply.then(settled, settled);
    return reply;
  }

  const receiver: Record<string, unknown> = {
    handle: tracked,
    fetch,
    health: lifecycle.health,
    close: lifecycle.close,
    say: log.once,
  };
  for (const name of ATTACH_METHODS) {
    receiver[name] = (handler: unknown) => {
      attach(name, handler);
      return receiver;
    };
  }
  return receiver as unknown as Receiver<T, S> & { say(line: string): void };
}

/** The request as the steps read it, whatever an adapter passed; the same object when it is. */
function wellFormed(request: ReceiverRequest): ReceiverRequest {
  const given = (request ?? {}) as Partial<ReceiverRequest>;
  const { method, url, headers } = given;
  const upper = typeof method === "string" ? method.toUpperCase() : "";
  const headersOk = typeof headers === "object" && headers !== null;
  if (upper === method && typeof url === "string" && headersOk && given.body !== undefined) {
    return request;
  }
  return {
    method: upper,
    url: typeof url === "string" ? url : "",
    headers: headersOk ? (headers as ReceiverRequest["headers"]) : {},
    body: given.body ?? null,
    ...(given.env === undefined ? {} : { env: given.env }),
  };
}

function once(name: string): TypeError {
  return new TypeError(
    `reportkit: this receiver already has an \`${name}\` handler (from its options or attached before); it takes one per kind: do both things in one function.`,
  );
}
