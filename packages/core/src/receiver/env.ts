// The environment variables adapters read the credentials from, where the options give none.
import type { EnvRecord } from "../base/types.js";

/** The webhook's secret: the bearer of every push. */
export const SECRET_ENV = "REPORTKIT_SECRET";
/** The webhook's token (the provider's "validation key"), for its verification handshake. */
export const VERIFICATION_TOKEN_ENV = "REPORTKIT_VERIFICATION_TOKEN";

export interface EnvCredentials {
  secret: string | undefined;
  verificationToken: string | undefined;
}

/** The credentials of an environment (`process.env`, a Worker's bindings). */
export function credentialsOf(env: EnvRecord | undefined): EnvCredentials {
  const read = (name: string) => {
    const value = env?.[name];
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  return { secret: read(SECRET_ENV), verificationToken: read(VERIFICATION_TOKEN_ENV) };
}
