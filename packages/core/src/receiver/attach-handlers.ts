// The handlers a receiver has: from its options, and attached later (`receiver.onDelivery(fn)`),
// one per kind, refused where they could never run.
import type { AttachedHandlers } from "../process/process-report.js";
import type { Config } from "./validate-options.js";

export type HandlerKind = keyof AttachedHandlers;

export interface Handlers {
  /** What the pipeline reads on every report: attaching changes it in place. */
  readonly attached: AttachedHandlers;
  /** @throws TypeError for a handler that is no function, or could never run, or a second one */
  attach(kind: HandlerKind, handler: unknown): void;
}

export function attachHandlers(config: Config): Handlers {
  const { queue, template } = config;
  const attached: AttachedHandlers = {
    onDelivery: config.onDelivery as AttachedHandlers["onDelivery"],
    onCall: config.onCall as AttachedHandlers["onCall"],
    onError: config.onError,
  };
  return {
    attached,
    attach(kind, handler) {
      if (typeof handler !== "function") {
        throw new TypeError(
          `reportkit: \`${kind}(handler)\` takes a function, got ${typeof handler}.`,
        );
      }
      if (queue !== undefined && kind !== "onError") {
        throw new TypeError(
          `reportkit: this receiver is in queue mode: it answers 202 and a worker runs the handlers. Pass \`${kind}\` to \`createWorker\` from @reportkit/bullmq instead.`,
        );
      }
      const sent = template?.type === "call" ? "onCall" : "onDelivery";
      if (template !== undefined && kind !== "onError" && kind !== sent) {
        throw new TypeError(
          `reportkit: the composed template sends ${template.type} reports, so \`${kind}\` would never run; attach \`${sent}\`.`,
        );
      }
      if (attached[kind] !== undefined) {
        throw new TypeError(
          `reportkit: this receiver already has an \`${kind}\` handler (from its options or attached before); it takes one per kind: do both things in one function.`,
        );
      }
      attached[kind] = handler as never;
    },
  };
}
