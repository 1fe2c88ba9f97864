// What every adapter's `webhookReceiver(options)` does before it translates anything, written
// once: the options guard, the credentials from the environment, the receiver.
import type { ComposedTemplate } from "@reportkit/wire";
import { createReceiverFrom } from "./create-receiver.js";
import type { RequestEnvToken } from "./credential-options.js";
import { type EnvRecord, withEnvCredentials } from "./env-credentials.js";
import type { ReceiverOptions } from "./receiver-options.js";
import type { Receiver } from "./types.js";

export interface AdapterReceiverSettings {
  /**
   * Where REPORTKIT_SECRET (or its old name REPORTKIT_TOKEN) and REPORTKIT_VERIFICATION_TOKEN
   * are read when the options give no `secret` and no `verificationToken`: `process.env` on Node.
   */
  env: EnvRecord | undefined;
  /**
   * For an adapter whose requests bring their own environment, passed as `ReceiverRequest.env`
   * (Workers bindings; a route's process.env read when the request comes, so that a build
   * needs no secret): a secret found in neither the options nor `env` is then no error at
   * construction but read from each request's environment, and a request without one gets 500
   * `token_check_failed` (the provider retries), whose message says `whereToSet`. Without it, a
   * missing secret throws here, at construction, where the app's author sees it.
   */
  requestEnv?: RequestEnvToken;
  /**
   * The names of the adapter's own options (where it is mounted: `path`, a framework's
   * settings), which the adapter reads itself: left out of what the receiver validates, since
   * it refuses names it does not know.
   */
  mountOptions?: readonly string[];
}

/**
 * Checks `options` (an object, or nothing to attach handlers later), leaves out the adapter's
 * `mountOptions`, fills `secret` and `verificationToken` from the environment and creates the
 * receiver.
 *
 * @example
 * export function webhookReceiver(options?: MyAdapterOptions) {
 *   const receiver = adapterReceiver(options, { env: process.env, mountOptions: ["path"] });
 *   const path = options?.path ?? "/webhooks";
 *   return (req, res) => receiver.handle(toReceiverRequest(req)).then((reply) => send(res, reply));
 * }
 */
export function adapterReceiver<
  const T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
>(options: ReceiverOptions<T, S> | undefined, settings: AdapterReceiverSettings): Receiver<T, S> {
  if (options === null || (options !== undefined && typeof options !== "object")) {
    throw new TypeError(
      `reportkit: webhookReceiver(options) takes an options object, or nothing (then attach handlers with .onDelivery(fn) / .onCall(fn)), got ${options === null ? "null" : typeof options}.`,
    );
  }
  const given = { ...(options ?? {}) } as Record<string, unknown>;
  for (const name of settings.mountOptions ?? []) delete given[name];
  const { options: filled, renames } = withEnvCredentials(
    given as ReceiverOptions<ComposedTemplate | undefined>,
    settings.env,
  );
  return createReceiverFrom<T, S>(filled, settings.requestEnv, renames);
}
