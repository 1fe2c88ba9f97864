// The receiver every conformance target mounts, built from a small serialisable setup so the
// same options exist in Node and, bundled, inside workerd. No node: imports here.
import type { ComposedTemplate, ReceiverOptions } from "@reportkit/core";

/** How the app's handlers behave and which receiver options differ from the defaults. */
export interface Setup {
  /** Default: the handlers record the call and return. */
  handler?: "throws" | "rejects";
  maxBodyBytes?: number;
  /** The token is a verifier function that throws (core: 500 token_check_failed). */
  tokenCheck?: "throws";
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
  /** The default in-memory dedupe store on (off otherwise: see receiverOptions). */
  dedupe?: boolean;
  /**
   * How the app gets its handlers. Default: in the options. "attached": options without them,
   * then `.onDelivery(fn)` / `.onCall(fn)` (Fastify: `fastify.reportkit`). "zero-argument":
   * `webhookReceiver()` with nothing, the token from REPORTKIT_TOKEN, then attached.
   */
  form?: "attached" | "zero-argument";
  /** With a `form`: "none" attaches no handler at all (the app is still starting). */
  attach?: "none";
}

/** One handler call as the test sees it: which handler, and the report as JSON. */
export interface Call {
  handler: "onDelivery" | "onCall";
  report: unknown;
}

/** What a failing handler throws; no reply body may ever contain it. */
export const HANDLER_SECRET = "db password is hunter2";

export function setupKey(setup: Setup): string {
  return JSON.stringify([
    setup.handler ?? "ok",
    setup.maxBodyBytes ?? 0,
    setup.tokenCheck ?? "",
    setup.composed ?? null,
    setup.header ?? "",
    setup.subpaths ?? false,
    setup.handlers ?? "both",
    setup.dedupe ?? false,
    setup.form ?? "options",
    setup.attach ?? "",
  ]);
}

/**
 * Receiver options for a setup, without `token` unless the setup needs a special one: each
 * target supplies it the way its users would (an option, or REPORTKIT_TOKEN).
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
      return undefined;
    };
  return {
    // One app serves every case of a setup, and many cases send the same sample: each must
    // reach the handler. Deduplication has its own cases (setup.dedupe).
    ...(setup.dedupe === true ? {} : { dedupe: false }),
    // The table checks replies; logging has tests of its own (and would fill the output).
    logger: false,
    ...(setup.handlers === "call-only" ? {} : { onDelivery: record("onDelivery") }),
    ...(setup.handlers === "delivery-only" ? {} : { onCall: record("onCall") }),
    ...(setup.maxBodyBytes === undefined ? {} : { maxBodyBytes: setup.maxBodyBytes }),
    ...(setup.composed === undefined ? {} : { composed: setup.composed }),
    ...(setup.header === undefined ? {} : { header: setup.header }),
    ...(setup.tokenCheck === "throws"
      ? {
          token: () => {
            throw new Error("token store unreachable");
          },
        }
      : {}),
  };
}

/** What attaching calls on a receiver: core's, an adapter's handler, `fastify.reportkit`. */
interface HandlerTarget {
  onDelivery(handler: unknown): unknown;
  onCall(handler: unknown): unknown;
}

export interface ReceiverSetup {
  /** The receiver's options; undefined for the zero-argument form. */
  options: ReceiverOptions<ComposedTemplate | undefined> | undefined;
  /** Attaches the setup's handlers once the receiver exists (for a `form`; else nothing). */
  attach(target: object): void;
}

/** The setup's receiver, in the form it asks for: options and what to attach after. */
export function receiverSetup(setup: Setup, calls: Call[]): ReceiverSetup {
  const options = receiverOptions(setup, calls);
  if (setup.form === undefined) return { options, attach() {} };
  const { onDelivery, onCall, ...rest } = options;
  return {
    options: setup.form === "zero-argument" ? undefined : rest,
    attach(target) {
      if (setup.attach === "none") return;
      // Each target's methods are typed by its own report types; the recorders take any report.
      const to = target as HandlerTarget;
      // A composed template takes only its own kind's handler (the other would never run).
      const kind = setup.composed?.type;
      if (onDelivery !== undefined && kind !== "call") to.onDelivery(onDelivery);
      if (onCall !== undefined && kind !== "delivery") to.onCall(onCall);
    },
  };
}

/** Where the workerd target names the setup of the receiver that answers the request. */
export const SETUP_HEADER = "x-conformance-setup";

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
