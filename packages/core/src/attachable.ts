import type { ComposedTemplate } from "./composed.js";
import type { Receiver } from "./types.js";

export type HandlerKind = "onDelivery" | "onCall" | "onError";

/** The receiver's handler-attaching methods, on an adapter's own handler, chainable. */
export type Attachable<H, T extends ComposedTemplate | undefined> = H & {
  onDelivery(handler: Parameters<Receiver<T>["onDelivery"]>[0]): Attachable<H, T>;
  onCall(handler: Parameters<Receiver<T>["onCall"]>[0]): Attachable<H, T>;
  onError(handler: Parameters<Receiver<T>["onError"]>[0]): Attachable<H, T>;
};

/**
 * Gives an adapter's handler (an Express middleware, a Hono handler) the receiver's
 * `onDelivery` / `onCall` / `onError`, each returning the handler, so it can be created,
 * configured and mounted as users know from Express and octokit. `attach` hands each one to
 * the adapter's receiver (which throws on a second handler of a kind).
 *
 * @example
 * const handler = attachable(middleware, (kind, fn) => receiver[kind](fn as never));
 * app.use(handler.onDelivery((report) => save(report)));
 */
export function attachable<H extends object, T extends ComposedTemplate | undefined>(
  handler: H,
  attach: (kind: HandlerKind, fn: unknown) => void,
): Attachable<H, T> {
  const result = handler as Attachable<H, T>;
  const on = (kind: HandlerKind) => (fn: unknown) => {
    attach(kind, fn);
    return result;
  };
  return Object.assign(result, {
    onDelivery: on("onDelivery"),
    onCall: on("onCall"),
    onError: on("onError"),
  });
}
