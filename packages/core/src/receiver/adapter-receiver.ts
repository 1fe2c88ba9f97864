// What every adapter's `webhookReceiver(options)` does before it translates anything, written
// once: the options guard, the credentials from the environment, the receiver.
import type { ComposedTemplate } from "@reportkit/wire";
import type { EnvRecord } from "../base/types.js";
import { checkOptions, type RequestEnvSecret } from "./check-options.js";
import { receiverOf } from "./create-receiver.js";
import { credentialsOf } from "./env.js";
import type { Receiver, ReceiverOptions } from "./options.js";

export interface AdapterReceiverSettings {
  /**
   * Where REPORTKIT_SECRET and REPORTKIT_VERIFICATION_TOKEN are read when the options give no
   * `secret` and no `verification.token`: `process.env` on Node.
   */
  env: EnvRecord | undefined;
  /**
   * For an adapter whose requests bring their own environment, passed as `ReceiverRequest.env`
   * (Workers bindings; a route's process.env read when the request comes, so that a build needs
   * no secret): a secret found in neither the options nor `env` is then no error at construction
   * but read from each request's environment, and a request without one gets 500
   * `secret_check_failed` (the provider retries), whose message says `whereToSet`. Without it, a
   * missing secret throws here, at construction, where the app's author sees it.
   */
  requestEnv?: RequestEnvSecret;
  /**
   * The names of the adapter's own options (where it is mounted: `path`, a framework's
   * settings), which the adapter reads itself: left out of what the receiver checks, since it
   * refuses names it does not know.
   */
  mountOptions?: readonly string[];
}

/** The receiver as an adapter holds it: `say` logs a line of the adapter's once, as core logs. */
export type AdapterReceiver<
  T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
> = Receiver<T, S> & { say(line: string): void };

/**
 * Checks `options` (an object, or nothing to attach handlers later), leaves out the adapter's
 * `mountOptions`, fills `secret` and `verification.token` from the environment, and creates
 * the receiver.
 *
 * @example
 * export function webhookReceiver(options?: MyAdapterOptions) {
 *   const receiver = adapterReceiver(options, { env: process.env, mountOptions: ["path"] });
 *   return (req, res) => receiver.handle(toReceiverRequest(req)).then((reply) => send(res, reply));
 * }
 */
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
  const verification = given.verification as
    | { token?: unknown; respond?: unknown }
    | false
    | undefined;
  if (
    verification !== false &&
    verificationToken !== undefined &&
    (verification === undefined ||
      (typeof verification === "object" &&
        verification !== null &&
        verification.token === undefined &&
        verification.respond === undefined))
  ) {
    given.verification = { ...(verification ?? {}), token: verificationToken };
  }
  return receiverOf<T, S>(
    checkOptions(given as ReceiverOptions<ComposedTemplate | undefined>, settings.requestEnv),
  );
}
