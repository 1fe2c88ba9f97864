// The environment variables adapters read a receiver's credentials from, when its options give
// none: the webhook's secret (the bearer of every push) and its verification token.

/** Environment variables, as `process.env` or a Workers `env` holds them. */
export type EnvRecord = Readonly<Record<string, unknown>>;

/** The webhook's secret: the bearer of every push. */
export const SECRET_ENV = "REPORTKIT_SECRET";
/** The old name of REPORTKIT_SECRET, still read (with a line at start-up saying to rename it). */
export const LEGACY_SECRET_ENV = "REPORTKIT_TOKEN";
/** The webhook's token (the provider's "validation key"), for its verification handshake. */
export const VERIFICATION_TOKEN_ENV = "REPORTKIT_VERIFICATION_TOKEN";

/** What an environment holds of the credentials, and what it should rename. */
export interface EnvCredentials {
  secret: string | undefined;
  verificationToken: string | undefined;
  /** Lines to log once: an old name in use. */
  renames: string[];
}

/** The credentials of an environment (`process.env`, a Worker's bindings). */
export function credentialsOf(env: EnvRecord | undefined): EnvCredentials {
  const read = (name: string) => {
    const value = env?.[name];
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  const secret = read(SECRET_ENV);
  const legacy = read(LEGACY_SECRET_ENV);
  const renames: string[] = [];
  if (legacy !== undefined) {
    renames.push(
      secret === undefined
        ? `reportkit: ${LEGACY_SECRET_ENV} is the old name of ${SECRET_ENV} (the webhook's secret, the bearer of every push): rename it; it is read for now.`
        : `reportkit: both ${SECRET_ENV} and ${LEGACY_SECRET_ENV} are set; ${SECRET_ENV} is used. Remove ${LEGACY_SECRET_ENV}, its old name.`,
    );
  }
  return { secret: secret ?? legacy, verificationToken: read(VERIFICATION_TOKEN_ENV), renames };
}

/**
 * Fills `secret` and `verificationToken` from the environment where the options give neither
 * (and do not turn authentication off), and says what to rename.
 *
 * @example
 * const { options: filled, renames } = withEnvCredentials(options, globalThis.process?.env);
 */
export function withEnvCredentials<
  T extends { secret?: unknown; token?: unknown; verificationToken?: unknown; auth?: false },
>(options: T, env: EnvRecord | undefined): { options: T; renames: string[] } {
  const found = credentialsOf(env);
  const filled: T = { ...options };
  const renames: string[] = [];
  const given = options.secret !== undefined || options.token !== undefined;
  if (!given && options.auth !== false && found.secret !== undefined) {
    (filled as { secret?: unknown }).secret = found.secret;
    renames.push(...found.renames);
  }
  if (options.verificationToken === undefined && found.verificationToken !== undefined) {
    (filled as { verificationToken?: unknown }).verificationToken = found.verificationToken;
  }
  return { options: filled, renames };
}
