// A receiver's options, checked once at construction and turned into its configuration. Every
// refusal says what was wrong and how to fix it; options that contradict each other are refused
// rather than one of them dropped without a word.
import { type ComposedTemplate, PROVIDER_TIME_ZONE } from "@reportkit/wire";
import type { BodyFormat } from "../body/media-type.js";
import { type CompiledTemplate, compileTemplate } from "../composed/compile-template.js";
import type { ReceiverLogger } from "../reply/receiver-log.js";
import { defaultDedupeKey } from "../report/dedupe-key.js";
import type { CallReport, DeliveryReport, Report } from "../report/schemas.js";
import { type ChallengeOption, checkChallengeOption } from "../request/challenge-option.js";
import type { Credential } from "../request/check-bearer.js";
import type { DedupeStore, FailureJournal } from "../store-kit/dedupe-store.js";
import type { ReportQueue } from "../store-kit/report-queue.js";
import { dedupeStore, failureJournal, telemetryOf } from "../store-kit/store-options.js";
import type { Telemetry } from "../store-kit/telemetry.js";
import { credentialOf, type RequestEnvToken } from "./credential-options.js";
import {
  type ErrorHandler,
  type Handler,
  RECEIVER_OPTION_NAMES,
  type ReceiverOptions,
} from "./receiver-options.js";

/** The largest body a receiver takes unless `maxBodyBytes` says otherwise. */
export const DEFAULT_MAX_BODY_BYTES = 65_536;
const DEFAULT_DEADLINE_MS = 8000;
const DEFAULT_BODY_TIMEOUT_MS = 5000;
/** setTimeout takes at most 2^31 - 1 ms. */
const MAX_MS = 2_147_483_647;

export type Template = CompiledTemplate & { readsBody: boolean; format: BodyFormat };

export interface Config {
  template: Template | undefined;
  credential: Credential;
  onDelivery: Handler<DeliveryReport> | undefined;
  onCall: Handler<CallReport> | undefined;
  onError: ErrorHandler | undefined;
  /** Where the receiver logs; undefined for none (`logger: false`). */
  logger: ReceiverLogger | undefined;
  dedupe: DedupeStore | undefined;
  /** The `dedupeKey` option, or `defaultDedupeKey`. */
  dedupeKey: (report: Report) => string | undefined;
  deadlineMs: number | undefined;
  bodyTimeoutMs: number;
  queue: ReportQueue | undefined;
  journal: FailureJournal | undefined;
  telemetry: Telemetry | undefined;
  timeZone: string;
  limit: number;
  /** The `challenge` option, checked: undefined for the provider's handshake. */
  challenge: ChallengeOption | undefined;
  /** Lines to log once at start-up: an old option or environment name in use. */
  renames: string[];
}

/**
 * @param requestEnv for an adapter whose requests bring their environment: a missing token is
 * then read from each request's (see credential-options.ts), not refused here
 * @throws TypeError saying which option is wrong and how to fix it
 */
export function validateOptions(
  input: ReceiverOptions<ComposedTemplate | undefined> | undefined,
  requestEnv?: RequestEnvToken,
): Config {
  if (input !== undefined && (typeof input !== "object" || input === null)) {
    throw new TypeError(
      `reportkit: the receiver's options must be an object, or left out to attach handlers later, got ${input === null ? "null" : typeof input}.`,
    );
  }
  const options = (input ?? {}) as ReceiverOptions<ComposedTemplate | undefined>;
  refuseUnknown(options);
  const { onDelivery, onCall, onError, queue, logger } = options;
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
  if (queue !== undefined) checkQueueMode(options);
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(limit) || limit <= 0) {
    throw new TypeError(
      `reportkit: \`maxBodyBytes\` must be a positive whole number of bytes, got ${String(options.maxBodyBytes)}.`,
    );
  }
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
  const { credential, renames } = credentialOf(options, requestEnv);
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
    credential,
    onDelivery: onDelivery as Handler<DeliveryReport> | undefined,
    onCall: onCall as Handler<CallReport> | undefined,
    onError,
    logger: loggerOf(logger),
    dedupe,
    dedupeKey: (options.dedupeKey as Config["dedupeKey"] | undefined) ?? defaultDedupeKey,
    deadlineMs: deadline(options.deadlineMs),
    bodyTimeoutMs: milliseconds("bodyTimeoutMs", options.bodyTimeoutMs, DEFAULT_BODY_TIMEOUT_MS),
    queue,
    journal: failureJournal(options.journal, dedupe),
    telemetry: telemetryOf(options.telemetry),
    timeZone: options.timeZone ?? PROVIDER_TIME_ZONE,
    limit,
    challenge: checkChallengeOption(options.challenge),
    renames,
  };
}

/** A misspelt option (or a mount option such as `path` given to core) is refused, not ignored. */
function refuseUnknown(options: object): void {
  for (const name of Object.keys(options)) {
    if (RECEIVER_OPTION_NAMES.has(name)) continue;
    const near = [...RECEIVER_OPTION_NAMES].find((known) => closeTo(name, known));
    throw new TypeError(
      `reportkit: unknown receiver option \`${name}\`${near === undefined ? "" : ` (did you mean \`${near}\`?)`}. The receiver's options are ${[...RECEIVER_OPTION_NAMES].join(", ")}; where it is mounted (a path) is its adapter's option.`,
    );
  }
}

/** Same letters ignoring case, or one edit apart: a likely misspelling. */
function closeTo(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x === y) return true;
  if (Math.abs(x.length - y.length) > 1) return false;
  let i = 0;
  while (i < x.length && x[i] === y[i]) i++;
  const rest = (s: string, skip: number) => s.slice(i + skip);
  return rest(x, 1) === rest(y, 1) || rest(x, 1) === rest(y, 0) || rest(x, 0) === rest(y, 1);
}

function checkQueueMode(options: ReceiverOptions<ComposedTemplate | undefined>): void {
  const { queue, onDelivery, onCall, dedupe } = options as {
    queue?: unknown;
    onDelivery?: unknown;
    onCall?: unknown;
    dedupe?: unknown;
  };
  if (
    typeof queue !== "object" ||
    queue === null ||
    typeof (queue as Partial<ReportQueue>).enqueue !== "function"
  ) {
    throw new TypeError(
      "reportkit: `queue` must be a report queue with an `enqueue(report, key)` method, such as `bullmqQueue({ connection })` from @reportkit/bullmq.",
    );
  }
  if (onDelivery !== undefined || onCall !== undefined) {
    throw new TypeError(
      "reportkit: give either `queue` (the receiver answers 202 and a worker runs the handlers: pass them to `createWorker`) or `onDelivery`/`onCall`, not both.",
    );
  }
  if (dedupe !== undefined && dedupe !== false) {
    throw new TypeError(
      "reportkit: in queue mode the queue deduplicates (a report's job id is its dedupe key, so a retry adds nothing), and `dedupe` would never be asked: leave it out.",
    );
  }
}

function loggerOf(logger: unknown): ReceiverLogger | undefined {
  if (logger === false) return undefined;
  if (logger === undefined) return console;
  const candidate = logger as Partial<ReceiverLogger> | null;
  if (
    typeof candidate !== "object" ||
    candidate === null ||
    typeof candidate.warn !== "function" ||
    typeof candidate.error !== "function"
  ) {
    throw new TypeError(
      "reportkit: `logger` must have `warn` and `error` methods (console and pino do), or be `false`.",
    );
  }
  return candidate as ReceiverLogger;
}

function deadline(deadlineMs: number | false | undefined): number | undefined {
  if (deadlineMs === false) return undefined;
  return milliseconds("deadlineMs", deadlineMs, DEFAULT_DEADLINE_MS, ", or `false` for none");
}

function milliseconds(name: string, value: unknown, fallback: number, or = ""): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0 || value > MAX_MS) {
    throw new TypeError(
      `reportkit: \`${name}\` must be a positive whole number of milliseconds (default ${fallback})${or}, got ${String(value)}.`,
    );
  }
  return value;
}
