// What every adapter's `webhookReceiver(options)` does before it translates anything, written
// once: the options guard, the token from REPORTKIT_TOKEN, the receiver.
import type { ComposedTemplate } from "@reportkit/wire";
import { handlersOf, receiverFrom } from "./create-receiver.js";
import { TOKEN_ENV, withEnvToken } from "./env-token.js";
import { receiverLifecycle } from "./receiver-lifecycle.js";
import {
  type Config,
  type ReceiverOptions,
  tokenCheck,
  validateOptions,
} from "./receiver-options.js";
import type { Receiver } from "./types.js";

/** Environment variables, as `process.env` or a Workers `env` holds them. */
export type EnvRecord = Readonly<Record<string, unknown>>;

export interface AdapterReceiverSettings {
  /** Where REPORTKIT_TOKEN is read when `token` is not given: `process.env` on Node. */
  env: EnvRecord | undefined;
  /**
   * Cloudflare Workers: secrets and bindings arrive with each request (Hono's `c.env`), not in
   * `env`. A token found in neither the options nor `env` is then no error at construction:
   * `forEnv(env)` answers with the token of that request's environment, and without one with
   * 500 `token_check_failed` (the provider retries). Elsewhere a missing token throws here, at
   * construction, where the app's author sees it.
   */
  tokenFromRequestEnv?: boolean;
  /**
   * With `tokenFromRequestEnv`: how to set the token where this adapter runs, for the 500's
   * message when a request finds none. Default: the Workers way (`wrangler secret put`).
   */
  setTokenHint?: string;
}

export interface AdapterReceiver<
  T extends ComposedTemplate | undefined,
  S extends object = object,
> {
  /** The receiver: attach handlers here; it answers every request whose token is known. */
  receiver: Receiver<T, S>;
  /**
   * The receiver for a request's environment: `receiver` itself unless the token comes from
   * that environment, then one sharing its options, store, handlers and lifecycle (`close`).
   */
  forEnv(env: unknown): Receiver<T, S>;
  /**
   * Whether requests below the path the receiver is mounted at are its reports: with a
   * composed template, whose URL may carry a path of its own (`/ack/receive`, `/dlr/{{id}}`),
   * they are, and core answers 400 naming the template's path to one that does not fit.
   * Without one, only the mount point's own path is; the rest belongs to the app's routes.
   */
  readonly takesSubPaths: boolean;
}

/**
 * Checks `options` (an object, or nothing to attach handlers later), fills `token` from
 * REPORTKIT_TOKEN and creates the receiver. Options the adapter adds (Express's `path`) may stay
 * in `options`: the receiver ignores keys it does not know.
 *
 * @example
 * export function webhookReceiver(options?: MyAdapterOptions) {
 *   const { receiver } = adapterReceiver(options, { env: process.env });
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
  const given = (options ?? {}) as unknown as ReceiverOptions<ComposedTemplate | undefined>;
  const withToken = withEnvToken(given, settings.env);
  const late = withToken.token === undefined && given.auth !== false;
  if (!late || !settings.tokenFromRequestEnv) {
    const config = validateOptions(withToken);
    const receiver = receiverFrom<T, S>(config, handlersOf(config));
    return { receiver, forEnv: () => receiver, takesSubPaths: config.template !== undefined };
  }
  // Every other option is checked now, not at the first request.
  const noTokenYet = noToken(settings.setTokenHint ?? WORKERS_HINT);
  const config = validateOptions({ ...given, token: noTokenYet });
  const handlers = handlersOf(config);
  // One lifecycle for all: `close()` on the app's receiver stops every token's receiver, and
  // waits for their requests; `health()` says so.
  const lifecycle = receiverLifecycle(config);
  const receiver = receiverFrom<T, S>(config, handlers, lifecycle);
  const byToken = new Map<string, Receiver<T, S>>();
  return {
    receiver,
    takesSubPaths: config.template !== undefined,
    forEnv(env) {
      const token = (env as EnvRecord | undefined)?.[TOKEN_ENV];
      const key = typeof token === "string" ? token : "";
      let found = byToken.get(key);
      if (found === undefined) {
        found = receiverFrom<T, S>(
          { ...config, check: checkFor(key, config, noTokenYet) },
          handlers,
          lifecycle,
        );
        // A Worker has one environment; tests may pass a few. Never grows without bound.
        if (byToken.size >= 16) byToken.clear();
        byToken.set(key, found);
      }
      return found;
    },
  };
}

/** The credential check for a token read from a request's environment. */
function checkFor(token: string, config: Config, noTokenYet: Config["check"]): Config["check"] {
  if (token === "") return noTokenYet;
  try {
    return tokenCheck(token, config.bearer, config.credentialHeader);
  } catch (error) {
    // A token no request could match (whitespace, say): say why on every report, as 500.
    return () => Promise.reject(error);
  }
}

const WORKERS_HINT = `in this Worker's environment. Set it with \`wrangler secret put ${TOKEN_ENV}\``;

/** The check that fails every request, saying where the token was looked for. */
function noToken(hint: string): () => Promise<never> {
  const message = `no token: ${TOKEN_ENV} is neither in the receiver's options nor ${hint}, or pass \`token\`.`;
  // A configuration problem, the same for every request: its stack would say nothing.
  return () => {
    const error = new Error(message);
    error.stack = `Error: ${message}`;
    return Promise.reject(error);
  };
}
