// What the receiver says besides its errors, through the same logger: a report nobody handles,
// the values a report could not use (its warnings), a body a framework parsed before the
// receiver saw it. Each is said once, or once a minute per cause, never with a phone number.
import type { Report } from "../report/schemas.js";
import type { ReceiverLogger } from "./receiver-log.js";
import { maskDigits } from "./redact-request.js";

/** A logger that throws must not change the reply. */
function say(logger: ReceiverLogger, line: string): void {
  try {
    logger.warn(line);
  } catch {}
}

/**
 * Logs once per kind that a report arrived for which no handler is attached (the receiver has
 * a handler of the other kind, so it acknowledges the report): otherwise it is gone unseen.
 */
export function unhandledKindLog(logger: ReceiverLogger): (kind: "delivery" | "call") => void {
  const told = new Set<string>();
  return (kind) => {
    if (told.has(kind)) return;
    told.add(kind);
    const [name, attach] =
      kind === "delivery" ? ["SMS delivery", "onDelivery"] : ["call", "onCall"];
    say(
      logger,
      `reportkit: a ${name} report arrived and was acknowledged (200) without a handler: this receiver has none for ${kind} reports. Attach one with ${attach}(fn) to keep them (logged once).`,
    );
  };
}

const WARNING_INTERVAL_MS = 60_000;
const CAUSES_PER_FIELD_PER_INTERVAL = 5;

/**
 * Logs a report's warnings (values it could not use, now null): each field and cause at most
 * once a minute, with the report's id (a message id, never the phone number), and a few causes
 * a minute per field at most. Without it, `{"units": "two"}` would be a 200 with a null that
 * nothing ever said.
 */
export function warningLog(logger: ReceiverLogger): (report: Report) => void {
  const told = new Map<string, { since: number; causes: Set<string> }>();
  return (report) => {
    const now = Date.now();
    for (const { field, message } of report.warnings) {
      // A run of digits as long as a phone number's is never written to a log.
      const cause = maskDigits(message, "[digits]");
      let window = told.get(field);
      if (window === undefined || now - window.since >= WARNING_INTERVAL_MS) {
        window = { since: now, causes: new Set() };
        told.set(field, window);
      }
      if (window.causes.has(cause) || window.causes.size >= CAUSES_PER_FIELD_PER_INTERVAL) continue;
      window.causes.add(cause);
      const which =
        report.type === "delivery"
          ? `SMS delivery report ${report.id}`
          : `call report ${report.mid ?? report.webhookId ?? "(no mid)"}`;
      say(
        logger,
        `reportkit: warning: ${which}, "${field}": ${cause} (report.warnings has it; this cause of "${field}" is logged at most once a minute).`,
      );
    }
  };
}

/**
 * Says once that a framework parsed the body before the receiver: then a report it cannot
 * parse (the provider's documented samples end with a trailing comma) gets that parser's error
 * and never reaches reportkit, so the provider drops it after four attempts.
 */
export function parsedBodyNotice(logger: ReceiverLogger): () => void {
  let told = false;
  return () => {
    if (told) return;
    told = true;
    say(
      logger,
      "reportkit: a body parser ran before the receiver (the body arrived already parsed). A report that parser cannot read (the provider's documented samples end with a trailing comma) gets the parser's own error and never reaches reportkit, and the provider drops it after 4 attempts: mount the receiver before the body parser (Express: app.use(webhookReceiver()) before app.use(express.json())). Logged once.",
    );
  };
}
