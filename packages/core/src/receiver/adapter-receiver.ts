// What every adapter's `webhookReceiver(options)` does before it translates anything, written
// once: the options guard, the credentials from the environment, the receiver, and its methods
// on the adapter's own handler.
import type { ComposedTemplate } from "@reportkit/wire";
import type { EnvRecord } from "../base/types.js";
import { checkOptions, type RequestEnvSecret } from "./check-options.js";
import { receiverOf } from "./create-receiver.js";
import { credentialsOf } from "./env.js";
import { ATTACH_METHODS, type Receiver, type ReceiverOptions } from "./options.js";

export interface AdapterReceiverSettings {
  /** Where REPORTKIT_SECRET and REPORTKIT_VERIFICATION_TOKEN are read: `process.env` on Node. */
  env: EnvRecord | undefined;
  /** For requests that bring their own environment: a secret missing here is read from theirs. */
  requestEnv?: RequestEnvSecret;
  /** The adapter's own options (`path`, a framework's settings): not the receiver's to check. */
  mountOptions?: readonly string[];
}

/** The receiver as an adapter holds it: `say` logs a line of the adapter's once, as core logs. */
export type AdapterReceiver<
  T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
> = Receiver<T, S> & { say(line: string): void };

/** The receiver of an adapter's options (or none): `mountOptions` out, credentials from `env`. */
export function adapterReceiver<
  const T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
>(
  options: ReceiverOptions<T, S> | undefined,
  settings: AdapterReceiverSettings,
): AdapterReceiver<T, S> {
  if (options === null || (options !== undefined && typeof options !== "object")) {
    throw new TypeError(
      `reportkit: webhookReceiver(options) takes an options object, or nothing (then attach handlers with .onDelivery(fn) / .onCall(fn)), got ${options === null ? "null" : typeof options}.`,
    );
  }
  const given = { ...(options ?? {}) } as Record<string, unknown>;
  for (const name of settings.mountOptions ?? []) delete given[name];
  const { secret, verificationToken } = credentialsOf(settings.env);
  if (given.secret === undefined && secret !== undefined) given.secret = secret;
  // The environment's token, unless the options give a token, a responder or `verification: false`.
  const verification = given.verification === undefined ? {} : given.verification;
  if (
    verificationToken !== undefined &&
    typeof verification === "object" &&
    verification !== null
  ) {
    const { token, respond } = verification as { token?: unknown; respond?: unknown };
    if (token === undefined && respond === undefined) {
      given.verification = { ...verification, token: verificationToken };
    }
  }
  return receiverOf<T, S>(
    checkOptions(given as ReceiverOptions<ComposedTemplate | undefined>, settings.requestEnv),
  );
}

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
