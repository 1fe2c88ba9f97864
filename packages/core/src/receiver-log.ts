import type { ReportkitError } from "./errors.js";

/** Where a receiver without `onError` says what went wrong: console, pino and most loggers fit. */
export interface ReceiverLogger {
  warn(message: string): unknown;
  error(message: string): unknown;
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
export function receiverLog(logger: ReceiverLogger): (error: ReportkitError) => void {
  const lastRefusal = new Map<string, number>();
  let toldNoHandler = false;
  return (error) => {
    try {
      if (EACH_TIME.has(error.code)) {
        logger.error(`reportkit: ${error.code}: ${error.message}${causeOf(error)}`);
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
      if (error.status >= 500 && error.code !== "no_handler")
        logger.error(`${line}${causeOf(error)}`);
      else logger.warn(line);
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
