import { ruleOf } from "./error-table.js";
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

// A refusal repeats for every request of a misconfigured sender (a wrong secret, say): one line
// a minute per cause says so without flooding the log. A cause is the code, the message and the
// cause's message (a missing secret and a wrong one are two causes of 401); at most a few causes
// a minute per code, since some messages name what the request sent and a flood of varied
// requests must not become a flood of lines.
const REFUSAL_LOG_INTERVAL_MS = 60_000;
const CAUSES_PER_CODE_PER_INTERVAL = 5;

/**
 * What the receiver logs, by each code's row of the error table: `each` failure of the app's
 * own code with its cause; `per-minute` causes (refusals of the sender's requests, a store or
 * queue that does not answer, a secret verifier that fails); the start-up "no handler yet"
 * `once`. Messages never carry a secret: they are ReportkitError messages, which never do.
 */
export function receiverLog(
  logger: ReceiverLogger,
): (error: ReportkitError, ctx?: LogContext) => void {
  const told = new Map<string, { since: number; causes: Set<string> }>();
  const toldOnce = new Set<string>();
  const structured = isStructured(logger);
  /** Whether this cause was not logged within the interval (and may be now). */
  const fresh = (code: string, cause: string): boolean => {
    const now = Date.now();
    let window = told.get(code);
    if (window === undefined || now - window.since >= REFUSAL_LOG_INTERVAL_MS) {
      window = { since: now, causes: new Set() };
      told.set(code, window);
    }
    if (window.causes.has(cause) || window.causes.size >= CAUSES_PER_CODE_PER_INTERVAL) {
      return false;
    }
    window.causes.add(cause);
    return true;
  };

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
      const rule = ruleOf(error.code);
      if (rule.log === "once") {
        if (toldOnce.has(error.code)) return;
        toldOnce.add(error.code);
      } else if (rule.log === "per-minute") {
        const cause = error.cause === undefined ? "" : messageOf(error.cause);
        if (!fresh(error.code, `${error.message}\n${cause}`)) return;
      }
      const line =
        rule.log === "each"
          ? `reportkit: ${error.code}: ${error.message}`
          : `reportkit: ${error.code} (${error.status}): ${error.message}`;
      write(rule.level, line, error, ctx);
    } catch {
      // A logger that throws must not change the reply.
    }
  };
}

function messageOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

function causeOf(error: ReportkitError): string {
  const { cause } = error;
  if (cause === undefined) return "";
  const text =
    cause instanceof Error ? (cause.stack ?? `${cause.name}: ${cause.message}`) : String(cause);
  return `\n  cause: ${text}`;
}
