// What the receiver says through its logger (console by default): errors as their row says,
// warnings, a kind no handler takes, an adapter's notices. Never a phone number or a secret, and
// every value from outside printable on one line.
import { maskDigits, printable } from "@reportkit/wire/internal";
import { ruleOf } from "../reply/error-table.js";
import type { ReportkitError } from "../reply/errors.js";
import { KIND_NAMES } from "../report/parse-report.js";
import type { Report } from "../report/schemas.js";

/** Where a receiver says what went wrong: console, pino and most loggers fit. */
export interface ReceiverLogger {
  warn(message: string): unknown;
  error(message: string): unknown;
}

/** What the receiver logs. Never throws: a logger that throws must not change a reply. */
export interface ReceiverLog {
  /** An error, as its code's row says: each time, once a minute per cause, or once. */
  error(error: ReportkitError, dedupeKey: string | undefined): void;
  /** A report's warnings: each field and cause at most once a minute. */
  warnings(report: Report): void;
  /** A report of a kind no handler takes was acknowledged: said once per kind. */
  unhandled(kind: Report["type"]): void;
  /** A line said once (the same line again says nothing). */
  once(line: string): void;
}

type LogFields = { code: string; status: number; dedupeKey?: string; err?: unknown };

const KINDS = {
  delivery: ["an SMS delivery report", "onDelivery"],
  call: ["a call report", "onCall"],
  unsubscribe: ["an opt-out", "onUnsubscribe"],
  event: ["an event", "onEvent"],
} as const satisfies Record<Report["type"], readonly [string, string]>;

// The log's one rate limiter (a refusal repeats for every request of a misconfigured sender): a
// line a minute per cause, five causes per topic at most, since some name what a request sent.
function onceAMinute(): (topic: string, cause: string) => boolean {
  const windows = new Map<string, { since: number; causes: Set<string> }>();
  return (topic, cause) => {
    const now = Date.now();
    let window = windows.get(topic);
    if (window === undefined || now - window.since >= 60_000) {
      window = { since: now, causes: new Set() };
      windows.set(topic, window);
    }
    if (window.causes.has(cause) || window.causes.size >= 5) return false;
    window.causes.add(cause);
    return true;
  };
}

/** A receiver's log; one that says nothing without a logger (`logger: false`). */
export function receiverLog(logger: ReceiverLogger | undefined): ReceiverLog {
  if (logger === undefined) {
    return { error() {}, warnings() {}, unhandled() {}, once() {} };
  }
  const fresh = onceAMinute();
  const said = new Set<string>();
  // pino and loggers like it (Fastify's is pino) take an object of fields before the message,
  // and have child loggers and a level; console has neither.
  const candidate = logger as ReceiverLogger & { child?: unknown; level?: unknown };
  const structured = typeof candidate.child === "function" && typeof candidate.level === "string";
  const say = (level: "warn" | "error", line: string, fields?: LogFields) => {
    try {
      if (fields !== undefined && structured)
        (logger[level] as unknown as (fields: LogFields, message: string) => unknown)(fields, line);
      else logger[level](line);
    } catch {}
  };
  const once = (line: string) => {
    if (said.has(line)) return;
    said.add(line);
    say("warn", line);
  };

  return {
    error(error, dedupeKey) {
      const rule = ruleOf(error.code);
      const cause = error.cause === undefined ? "" : messageOf(error.cause);
      if (
        rule.log === "once"
          ? said.has(error.code)
          : rule.log === "per-minute" && !fresh(error.code, `${error.message}\n${cause}`)
      ) {
        return;
      }
      said.add(error.code);
      const key = dedupeKey === undefined ? undefined : printable(dedupeKey);
      const withCause = rule.level === "error" && error.cause !== undefined;
      const line =
        rule.log === "each"
          ? `reportkit: ${error.code}: ${error.message}`
          : `reportkit: ${error.code} (${error.status}): ${error.message}`;
      const fields: LogFields = { code: error.code, status: error.status };
      if (key !== undefined) fields.dedupeKey = key;
      if (withCause) fields.err = error.cause;
      const text = structured
        ? line
        : `${line}${key === undefined ? "" : ` (report ${key})`}${withCause ? causeOf(error.cause) : ""}`;
      say(rule.level, text, fields);
    },
    warnings(report) {
      for (const { field, message } of report.warnings) {
        // A run of digits as long as a phone number's is never written to a log.
        const cause = printable(maskDigits(message, "[digits]"));
        if (!fresh(`warning:${field}`, cause)) continue;
        say(
          "warn",
          `reportkit: warning: ${nameOf(report)}, "${printable(field)}": ${cause} (report.warnings has it; this cause of "${printable(field)}" is logged at most once a minute).`,
        );
      }
    },
    unhandled(kind) {
      const [name, attach] = KINDS[kind];
      once(
        `reportkit: ${name} arrived and was acknowledged (200) without a handler: this receiver has none for ${kind} reports. Attach one with ${attach}(fn) to keep them (logged once).`,
      );
    },
    once,
  };
}

/** A report as a log line names it: by its id, never a phone number. */
function nameOf(report: Report): string {
  if (report.type === "event") {
    return `event ${printable(report.event)} ${printable(report.id ?? "(no id)")}`;
  }
  const id = report.type === "call" ? (report.mid ?? report.webhookId ?? "(no mid)") : report.id;
  return `${KIND_NAMES[report.type]} ${printable(id)}`;
}

function messageOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

function causeOf(cause: unknown): string {
  const text =
    cause instanceof Error ? (cause.stack ?? `${cause.name}: ${cause.message}`) : String(cause);
  return `\n  cause: ${text}`;
}
