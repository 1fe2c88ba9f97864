/** Environment variables, as `process.env` or a Workers `env` holds them. */
export type EnvRecord = Readonly<Record<string, unknown>>;

/** The environment variable adapters read the token from when `token` is not given. */
export const TOKEN_ENV = "REPORTKIT_TOKEN";

/**
 * Fills `token` from REPORTKIT_TOKEN when the options give none (and do not turn auth off).
 * Adapters call it with `process.env`.
 *
 * @example
 * createReceiver(withEnvToken(options, globalThis.process?.env));
 */
export function withEnvToken<T extends { token?: unknown; auth?: false }>(
  options: T,
  env: EnvRecord | undefined,
): T {
  if (options.token !== undefined || options.auth === false) return options;
  const token = env?.[TOKEN_ENV];
  return typeof token === "string" && token !== "" ? { ...options, token } : options;
}
