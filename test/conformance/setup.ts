// The receiver every conformance target mounts, built from a small serialisable setup so the
// same options exist in Node and, bundled, inside workerd. No node: imports here.
import type { ComposedTemplate, ReceiverOptions } from "@reportkit/core";
import { TOKEN } from "../fixtures/samples.ts";
import {
  faultyDedupe,
  memoryQueue,
  type QueueFault,
  type StoreFault,
} from "../support/faulty-stores.ts";

/** How the app's handlers behave and which receiver options differ from the defaults. */
export interface Setup {
  /**
   * Default: the handlers record the call and return. "hangs": the handler never settles (a
   * call stuck on a lost connection), so only `deadlineMs` answers.
   */
  handler?: "throws" | "rejects" | "hangs";
  /** The receiver's `deadlineMs` (default: core's 8 s). */
  deadlineMs?: number;
  maxBodyBytes?: number;
  /** The secret is a verifier function that throws (core: 500 secret_check_failed). */
  tokenCheck?: "throws";
  /** The receiver's `verificationToken` (the webhook's token, the provider's validation key). */
  verificationToken?: string;
  /** A composed webhook's template. */
  composed?: ComposedTemplate;
  /** The token comes in this header, whole, instead of Authorization: Bearer. */
  header?: string;
  /**
   * The app mounts the receiver for every path under /webhooks/ (path placeholders, a
   * template's own path after a mount prefix). Such cases send only to paths under /webhooks/.
   */
  subpaths?: boolean;
  /** Default: both handlers. Otherwise only the one named, so the other kind has none. */
  handlers?: "delivery-only" | "call-only";
  /**
   * Deduplication on (off otherwise: see receiverOptions): "memory" is the default in-memory
   * store (the option left out); a fault, that store with one step failing on demand.
   */
  dedupe?: "memory" | StoreFault;
  /** "not a string": the `dedupeKey` option returns "" (core: 500 internal_error). */
  dedupeKey?: "not a string";
  /**
   * Queue mode instead of handlers: a queue in memory (each job recorded as a call of
   * "queue"), working, or failing as the fault says.
   */
  queue?: "memory" | QueueFault;
  /** `close()` is called on the receiver once it is built (core: 503 shutting_down). */
  closed?: boolean;
  /**
   * How the app gets its handlers. Default: in the options. "attached": options without them,
   * then `.onDelivery(fn)` / `.onCall(fn)` (Fastify: `fastify.reportkit`). "zero-argument":
   * `webhookReceiver()` with nothing, the secret from REPORTKIT_SECRET, then attached.
   */
  form?: "attached" | "zero-argument";
  /** With a `form`: "none" attaches no handler at all (the app is still starting). */
  attach?: "none";
}

/**
 * One handler call as the test sees it: which handler, and the report as JSON. In queue mode,
 * one job the queue took ("queue"), with the key it was enqueued under.
 */
export interface Call {
  handler: "onDelivery" | "onCall" | "onUnsubscribe" | "onEvent" | "queue";
  report: unknown;
  key?: string | undefined;
}

/** What a failing handler throws; no reply body may ever contain it. */
export const HANDLER_SECRET = "db password is hunter2";

/**
 * Receiver options for a setup, without `token` unless the setup needs a special one: each
 * target supplies it the way its users would (an option, or REPORTKIT_SECRET).
 */
export function receiverOptions(
  setup: Setup,
  calls: Call[],
): ReceiverOptions<ComposedTemplate | undefined> {
  const record =
    (handler: Call["handler"]) =>
    (report: unknown): unknown => {
      calls.push({ handler, report: JSON.parse(JSON.stringify(report)) });
      if (setup.handler === "throws") throw new Error(HANDLER_SECRET);
      if (setup.handler === "rejects") {
        return new Promise((_, reject) => setTimeout(() => reject(new Error(HANDLER_SECRET)), 1));
      }
      if (setup.handler === "hangs") return new Promise(() => {});
      return undefined;
    };
  const { queue } = setup;
  return {
    // Many cases send the same sample, some of them at once: each must reach the handler.
    // Deduplication has its own cases (setup.dedupe).
    ...dedupeOptions(setup),
    // The table checks replies; logging has tests of its own (and would fill the output).
    logger: false,
    ...(queue !== undefined
      ? {
          queue: memoryQueue(
            ({ report, key }) => calls.push({ handler: "queue", report, key }),
            queue === "memory" ? undefined : queue,
          ),
        }
      : {
          ...(setup.handlers === "call-only" ? {} : { onDelivery: record("onDelivery") }),
          ...(setup.handlers === "delivery-only" ? {} : { onCall: record("onCall") }),
          // Opt-outs and other events: a receiver of a composed template takes neither.
          ...(setup.handlers !== undefined || setup.composed !== undefined
            ? {}
            : { onUnsubscribe: record("onUnsubscribe"), onEvent: record("onEvent") }),
        }),
    ...(setup.deadlineMs === undefined ? {} : { deadlineMs: setup.deadlineMs }),
    ...(setup.maxBodyBytes === undefined ? {} : { body: { maxBytes: setup.maxBodyBytes } }),
    ...(setup.composed === undefined ? {} : { composed: setup.composed }),
    ...(setup.header === undefined ? {} : { secret: { value: TOKEN, header: setup.header } }),
    ...(setup.tokenCheck === "throws"
      ? {
          secret: () => {
            throw new Error("secret store unreachable");
          },
        }
      : {}),
    ...(setup.verificationToken === undefined
      ? {}
      : { verification: { token: setup.verificationToken } }),
  };
}

function dedupeOptions(setup: Setup): Pick<ReceiverOptions, "dedupe"> {
  const { dedupe } = setup;
  const store =
    dedupe === undefined ? false : typeof dedupe === "object" ? faultyDedupe(dedupe) : undefined;
  if (setup.dedupeKey !== "not a string") return store === undefined ? {} : { dedupe: store };
  return { dedupe: { ...(store === undefined ? {} : { store }), key: () => "" } };
}

/** What attaching calls on a receiver: core's, an adapter's handler, `fastify.reportkit`. */
interface HandlerTarget {
  onDelivery(handler: unknown): unknown;
  onCall(handler: unknown): unknown;
  onUnsubscribe(handler: unknown): unknown;
  onEvent(handler: unknown): unknown;
  close(): Promise<void>;
}

export interface ReceiverSetup {
  /** The receiver's options; undefined for the zero-argument form. */
  options: ReceiverOptions<ComposedTemplate | undefined> | undefined;
  /**
   * Once the receiver exists: attaches the setup's handlers (for a `form`), and closes the
   * receiver for a `closed` setup.
   */
  attach(target: object): void;
}

/** The setup's receiver, in the form it asks for: options and what to attach after. */
export function receiverSetup(setup: Setup, calls: Call[]): ReceiverSetup {
  const options = receiverOptions(setup, calls);
  // Each target's methods are typed by its own report types; the recorders take any report.
  const close = (target: object) => {
    // close() only stops new reports at once; what it waits for is in flight, here nothing.
    if (setup.closed === true) void (target as HandlerTarget).close();
  };
  if (setup.form === undefined) return { options, attach: close };
  const { onDelivery, onCall, onUnsubscribe, onEvent, ...rest } = options;
  return {
    options: setup.form === "zero-argument" ? undefined : rest,
    attach(target) {
      if (setup.attach !== "none") {
        const to = target as HandlerTarget;
        // A composed template takes only its own kind's handler (the other would never run).
        const kind = setup.composed?.type;
        if (onDelivery !== undefined && kind !== "call") to.onDelivery(onDelivery);
        if (onCall !== undefined && kind !== "delivery") to.onCall(onCall);
        if (onUnsubscribe !== undefined) to.onUnsubscribe(onUnsubscribe);
        if (onEvent !== undefined) to.onEvent(onEvent);
      }
      close(target);
    },
  };
}

/** Where the workerd target names the app (opened by /__setup) that answers the request. */
export const APP_HEADER = "x-conformance-app";

/** The header by which a real-socket app's test stage makes the body stream fail mid-way. */
export const FAULT_HEADER = "x-conformance-fault";

/** A body that yields its first chunk and then fails, as a connection reset mid-body does. */
export function failingStream(first: Uint8Array): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent) {
          controller.error(new Error("connection reset mid-body"));
          return;
        }
        sent = true;
        controller.enqueue(first);
      },
    },
    { highWaterMark: 0 },
  );
}
