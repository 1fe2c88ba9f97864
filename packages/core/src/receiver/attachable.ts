import type { ComposedTemplate } from "@reportkit/wire";
import type { HandlerKind } from "./attach-handlers.js";
import type { Receiver } from "./types.js";

/**
 * The receiver's handler-attaching methods, on an adapter's own handler, chainable; and its
 * `health()` and `close()`.
 */
export type Attachable<H, T extends ComposedTemplate | undefined, S extends object = object> = H & {
  onDelivery(handler: Parameters<Receiver<T, S>["onDelivery"]>[0]): Attachable<H, T, S>;
  onCall(handler: Parameters<Receiver<T, S>["onCall"]>[0]): Attachable<H, T, S>;
  onError(handler: Parameters<Receiver<T, S>["onError"]>[0]): Attachable<H, T, S>;
  health: Receiver<T, S>["health"];
  close: Receiver<T, S>["close"];
};

/**
 * Gives an adapter's handler (an Express middleware, a Hono handler) the receiver's
 * `onDelivery` / `onCall` / `onError`, each returning the handler, so it can be created,
 * configured and mounted as users know from Express and octokit; and the receiver's `health`
 * and `close`.
 *
 * @example
 * const handler = attachable(middleware, receiver);
 * app.use(handler.onDelivery((report) => save(report)));
 */
export function attachable<
  H extends object,
  T extends ComposedTemplate | undefined,
  S extends object = object,
>(handler: H, receiver: Receiver<T, S>): Attachable<H, T, S> {
  const result = handler as Attachable<H, T, S>;
  const on = (kind: HandlerKind) => (fn: unknown) => {
    receiver[kind](fn as never);
    return result;
  };
  return Object.assign(result, {
    onDelivery: on("onDelivery"),
    onCall: on("onCall"),
    onError: on("onError"),
    health: () => receiver.health(),
    close: (options?: Parameters<Receiver<T, S>["close"]>[0]) => receiver.close(options),
  });
}
