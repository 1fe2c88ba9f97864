import type { ComposedTemplate } from "@reportkit/wire";
import { ATTACH_METHODS, type Receiver } from "./options.js";

/** The receiver's attaching methods (chainable), `health` and `close`, on an adapter's handler. */
export type Attachable<H, T extends ComposedTemplate | undefined, S extends object = object> = H & {
  onDelivery(handler: Parameters<Receiver<T, S>["onDelivery"]>[0]): Attachable<H, T, S>;
  onCall(handler: Parameters<Receiver<T, S>["onCall"]>[0]): Attachable<H, T, S>;
  onUnsubscribe(handler: Parameters<Receiver<T, S>["onUnsubscribe"]>[0]): Attachable<H, T, S>;
  onEvent(handler: Parameters<Receiver<T, S>["onEvent"]>[0]): Attachable<H, T, S>;
  onError(handler: Parameters<Receiver<T, S>["onError"]>[0]): Attachable<H, T, S>;
  health: Receiver<T, S>["health"];
  close: Receiver<T, S>["close"];
};

/**
 * Gives an adapter's handler (an Express middleware, a Hono handler) the receiver's `onDelivery`,
 * …, `onError` (each returning the handler, as octokit's does), `health` and `close`.
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
  for (const name of ATTACH_METHODS) {
    Object.assign(result, {
      [name]: (fn: unknown) => {
        (receiver[name] as (fn: unknown) => unknown)(fn);
        return result;
      },
    });
  }
  return Object.assign(result, {
    health: () => receiver.health(),
    close: (options?: Parameters<Receiver<T, S>["close"]>[0]) => receiver.close(options),
  });
}
