// The options that plug something in (a dedupe store, a failure journal, telemetry): each is
// checked for the members the receiver calls, once, when the receiver is built.
import type { DedupeStore, FailureJournal } from "./dedupe-store.js";
import { memoryDedupe } from "./memory-dedupe.js";
import type { Telemetry } from "./telemetry.js";

export function dedupeStore(dedupe: DedupeStore | false | undefined): DedupeStore | undefined {
  if (dedupe === false) return undefined;
  if (dedupe === undefined) return memoryDedupe();
  const ok =
    typeof dedupe === "object" &&
    dedupe !== null &&
    typeof dedupe.claim === "function" &&
    typeof dedupe.complete === "function" &&
    typeof dedupe.release === "function" &&
    Number.isFinite(dedupe.leaseMs) &&
    dedupe.leaseMs > 0 &&
    optionalFunctions(dedupe, ["scope", "ping", "close"]);
  if (!ok) {
    throw new TypeError(
      "reportkit: `dedupe` must be a dedupe store (`memoryDedupe()`, `redisDedupe()` from @reportkit/redis, or an object with leaseMs, claim, complete and release), or `false` to turn deduplication off.",
    );
  }
  return dedupe;
}

export function failureJournal(
  journal: FailureJournal | false | undefined,
  dedupe: DedupeStore | undefined,
): FailureJournal | undefined {
  if (journal === false) return undefined;
  if (journal === undefined) return dedupe?.journal;
  if (
    typeof journal !== "object" ||
    journal === null ||
    typeof journal.record !== "function" ||
    !optionalFunctions(journal, ["ping"])
  ) {
    throw new TypeError(
      "reportkit: `journal` must be a failure journal (an object with `record(entry)`), or `false` to keep nothing. By default the dedupe store's journal is used, where it has one.",
    );
  }
  return journal;
}

export function telemetryOf(telemetry: Telemetry | undefined): Telemetry | undefined {
  if (telemetry === undefined) return undefined;
  if (
    typeof telemetry !== "object" ||
    telemetry === null ||
    typeof telemetry.startReport !== "function" ||
    typeof telemetry.refused !== "function"
  ) {
    throw new TypeError(
      "reportkit: `telemetry` must be a Telemetry (`otelTelemetry()` from @reportkit/otel, or an object with `startReport` and `refused`).",
    );
  }
  return telemetry;
}

/** Whether each named member is absent or a function. */
function optionalFunctions(value: object, names: readonly string[]): boolean {
  return names.every((name) => {
    const member = (value as Record<string, unknown>)[name];
    return member === undefined || typeof member === "function";
  });
}
