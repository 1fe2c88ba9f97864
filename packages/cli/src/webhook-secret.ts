// The webhook's secret, as `send`, `replay` and `reconcile` take it: what the provider sends as
// `Authorization: Bearer <secret>` with every push, so what these commands send the receiver.
// One helper for the three (and `reportkit sandbox`, which reads the same variables), so that
// they name it, read it and fall back alike.
import { type Command, Option } from "commander";
import type { CliIo } from "./io.js";

/** The flags `withSecretOptions` adds. */
export interface SecretFlags {
  secret?: string;
  /** The old name of --secret. */
  token?: string;
}

/**
 * Adds `--secret <secret>` and its alias `--token` (its old name; giving both is refused).
 * @param purpose how the command sends it, after "the webhook's secret, "
 */
export function withSecretOptions(command: Command, purpose = "sent as Bearer"): Command {
  return command
    .option("--secret <secret>", `the webhook's secret, ${purpose} (env: REPORTKIT_SECRET)`)
    .addOption(
      new Option(
        "--token <secret>",
        "alias of --secret, its old name (env: REPORTKIT_TOKEN, read after REPORTKIT_SECRET)",
      ).conflicts("secret"),
    );
}

/**
 * The secret to send: --secret (or --token), else REPORTKIT_SECRET, else REPORTKIT_TOKEN (its
 * old name), the variables the receivers read; undefined when none is given (an empty value is
 * none).
 */
export function secretOf(flags: SecretFlags, env: CliIo["env"]): string | undefined {
  return nonEmpty(flags.secret) ?? nonEmpty(flags.token) ?? envSecret(env)?.secret;
}

/**
 * The secret of the environment and the variable it came from: REPORTKIT_SECRET, else
 * REPORTKIT_TOKEN (its old name); undefined when neither is set (or both are empty).
 */
export function envSecret(
  env: CliIo["env"],
): { secret: string; from: "REPORTKIT_SECRET" | "REPORTKIT_TOKEN" } | undefined {
  const secret = nonEmpty(env.REPORTKIT_SECRET);
  if (secret !== undefined) return { secret, from: "REPORTKIT_SECRET" };
  const token = nonEmpty(env.REPORTKIT_TOKEN);
  return token === undefined ? undefined : { secret: token, from: "REPORTKIT_TOKEN" };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
