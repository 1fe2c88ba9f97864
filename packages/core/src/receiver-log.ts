import type { ReportkitError } from "./errors.js";

/** Where a receiver without `onError` says what went wrong: console, pino and most loggers fit. */
export interface ReceiverLogger {
  warn(message: string): unknown;
  error(message: string): unknown;
}

/** What a log line is about, besides the error: the report's dedupe key once it has one. */
export interface LogContext {
  readonly dedupeKey?: string | undefined;
}

/** The fields a structured logger (pino, Fastify's) gets with each line. */
interface LogFields {
  code: string;
  status: number;
  dedupeKey?: string;
  err?: unknown;
}

type StructuredLog = (fields: LogFields, message: string) => unknown;

/**
 * pino and loggers like it (Fastify's is pino) take an object of fields before the message,
 * and have child loggers and a level; console has neither.
 */
function isStructured(logger: ReceiverLogger): boolean {
  const candidate = logger as ReceiverLogger & { child?: unknown; level?: unknown };
  return typeof candidate.child === "function" && typeof candidate.level === "string";
}

/** Failures of the app's own code: each one is worth a line, with its cause. */
const EACH_TIME: ReadonlySet<string> = new Set([
  "handler_failed",
  "handler_timeout",
  "token_check_failed",
  "internal_error",
]);

// A refusal repeats for every request of a misconfigured sender (a wrong token, say): one line
// a minute per code says so without flooding the log.
const REFUSAL_LOG_INTERVAL_MS = 60_000;

/**
 * What the receiver logs when nothing else observes it: every failure of the app's own code
 * (a handler, a token verifier, the receiver itself) once, with its cause; refusals of the
 * sender's requests and an unreachable store or queue at most once a minute per code; the
 * start-up "no handler yet" once.
 * Messages never carry a token: they are ReportkitError messages, which never do.
 */
export function receiverLog(
  logger: ReceiverLogger,
): (error: ReportkitError, ctx?: LogContext) => void {
  const lastRefusal = new Map<string, number>();
  let toldNoHandler = false;
  const structured = isStructured(logger);

  /** One line: fields and message for pino, text (the key, then the cause) for the rest. */
  function write(level: "warn" | "error", line: string, error: ReportkitError, ctx?: LogContext) {
    const key = ctx?.dedupeKey;
    const withCause = level === "error" && error.cause !== undefined;
    if (structured) {
      const fields: LogFields = { code: error.code, status: error.status };
      if (key !== undefined) fields.dedupeKey = key;
      if (withCause) fields.err = error.cause;
      (logger[level] as unknown as StructuredLog)(fields, line);
      return;
    }
    const about = key === undefined ? "" : ` (report ${key})`;
    logger[level](`${line}${about}${withCause ? causeOf(error) : ""}`);
  }

  return (error, ctx) => {
    try {
      if (EACH_TIME.has(error.code)) {
        write("error", `reportkit: ${error.code}: ${error.message}`, error, ctx);
        return;
      }
      if (error.code === "no_handler") {
        if (toldNoHandler) return;
        toldNoHandler = true;
      } else {
        const now = Date.now();
        const last = lastRefusal.get(error.code);
        if (last !== undefined && now - last < REFUSAL_LOG_INTERVAL_MS) return;
        lastRefusal.set(error.code, now);
      }
      const line = `reportkit: ${error.code} (${error.status}): ${error.message}`;
      write(
        error.status >= 500 && error.code !== "no_handler" ? "error" : "warn",
        line,
        error,
        ctx,
      );
    } catch {
      // A logger that throws must not change the reply.
    }
  };
}

function causeOf(error: ReportkitError): string {
  const { cause } = error;
  if (cause === undefined) return "";
  const text =
    cause instanceof Error ? (cause.stack ?? `${cause.name}: ${cause.message}`) : String(cause);
  return `\n  cause: ${text}`;
}
