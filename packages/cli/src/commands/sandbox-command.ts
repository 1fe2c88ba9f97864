import { randomBytes } from "node:crypto";
import { createSandbox, formatAttempt, formatVerification } from "@reportkit/sandbox";
import { PROVIDER_TIME_ZONE } from "@reportkit/wire";
import type { Command } from "commander";
import { formatDuration, parseDuration } from "../duration.js";
import { CliError, type CliIo } from "../io.js";
import { inline } from "../terminal-safe.js";
import { envSecret } from "../webhook-secret.js";

interface SandboxFlags {
  port: string;
  host: string;
  token?: string;
  retryInterval: string;
  retries: string;
  timeout: string;
  timeZone: string;
  payloads: string;
  allowedHost: string[];
}

/** `reportkit sandbox`: the provider on localhost, printing every push attempt as it happens. */
export function sandboxCommand(command: Command, io: CliIo): Command {
  return command
    .description("run the provider on localhost: management API, message/call simulator, pusher")
    .option("--port <n>", "port to listen on", "4010")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option(
      "--allowed-host <name...>",
      "a Host name to answer besides localhost/127.0.0.1/[::1] (others get 403: DNS rebinding)",
      [],
    )
    .option(
      "--token <token>",
      "API token clients must send (env: REPORTKIT_API_TOKEN; default: a new one, printed)",
    )
    .option("--retry-interval <duration>", "wait between push attempts (provider: 30m)", "30m")
    .option("--retries <n>", "retries after a failed push (provider: 3)", "3")
    .option("--timeout <duration>", "how long a push waits for the receiver's answer", "10s")
    .option("--time-zone <zone>", "zone of the reports' wall-clock times", PROVIDER_TIME_ZONE)
    .option(
      "--payloads <shape>",
      'report shape: "documented" (as the provider\'s samples: no unix fields, trailing comma) or "complete"',
      "documented",
    )
    .action(async (flags: SandboxFlags) => {
      const port = Number(flags.port);
      if (!/^\d+$/.test(flags.port) || port > 65_535) {
        throw new CliError(`--port must be 0 to 65535, got "${flags.port}".`);
      }
      if (!/^\d+$/.test(flags.retries)) {
        throw new CliError(`--retries must be a whole number, got "${flags.retries}".`);
      }
      if (flags.payloads !== "documented" && flags.payloads !== "complete") {
        throw new CliError(
          `--payloads must be "documented" or "complete", got "${flags.payloads}".`,
        );
      }
      const retryIntervalMs = parseDuration(flags.retryInterval, "--retry-interval");
      const timeoutMs = parseDuration(flags.timeout, "--timeout");
      const given = flags.token ?? io.env.REPORTKIT_API_TOKEN;
      // The secret of webhooks created without one (REPORTKIT_TOKEN read as its old name).
      const fallback = envSecret(io.env);
      const token =
        given !== undefined && given !== "" ? given : `sandbox-${randomBytes(12).toString("hex")}`;
      let sandbox: Awaited<ReturnType<typeof createSandbox>>;
      try {
        sandbox = await createSandbox({
          port,
          host: flags.host,
          allowedHosts: flags.allowedHost,
          token,
          retries: Number(flags.retries),
          retryIntervalMs,
          timeoutMs,
          timeZone: flags.timeZone,
          payloads: flags.payloads,
          // One secret end to end: the receivers' variable is the bearer of webhooks created
          // without a secret of their own.
          webhookSecret: fallback?.secret,
          // One line each, whatever the report id or URL holds.
          onAttempt: (attempt) => io.stdout(`${inline(formatAttempt(attempt))}\n`),
          onVerification: (sent) => io.stdout(`${inline(formatVerification(sent))}\n`),
        });
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (code === "EADDRINUSE") {
          throw new CliError(`port ${port} on ${flags.host} is in use; pick another with --port.`);
        }
        throw error;
      }
      const generated = given === undefined || given === "";
      const shownToken = generated ? token : "(the one you gave)";
      // A token the user chose is not echoed back; one made up here must be, to be usable.
      const exportToken = generated ? token : "<the token you gave>";
      const pushBearer =
        fallback === undefined
          ? "a webhook's --secret (REPORTKIT_SECRET is not set here: a webhook without --secret is pushed without Authorization)"
          : fallback.from === "REPORTKIT_SECRET"
            ? "a webhook's --secret, else REPORTKIT_SECRET of this environment"
            : "a webhook's --secret, else REPORTKIT_TOKEN of this environment (its old name: rename it REPORTKIT_SECRET)";
      io.stdout(
        [
          `reportkit sandbox listening on ${sandbox.baseUrl}`,
          `  dashboard    ${sandbox.dashboardUrl}`,
          `  API token    ${shownToken}`,
          `  push bearer  ${pushBearer}`,
          "  verification a webhook created with --token: POST <uri>?token=<token> with {validation_key, challenge}, verified on 200 {challenge}",
          `  pushes       1 + ${flags.retries} attempts, ${formatDuration(retryIntervalMs)} apart, ${formatDuration(timeoutMs)} timeout`,
          "  management   GET|POST developer/webhooks, GET|PUT|DELETE developer/webhooks/{id}",
          "  sandbox-only POST sandbox/sms, POST sandbox/calls, POST sandbox/composed-webhooks, GET sandbox/push-attempts, GET sandbox/events",
          "In another terminal:",
          `  export REPORTKIT_BASE_URL=${sandbox.baseUrl} REPORTKIT_API_TOKEN=${exportToken}`,
          "  # --secret: the webhook's secret, the bearer of every push (your receiver's REPORTKIT_SECRET)",
          "  # --token: the webhook's token, the validation key of its verification (your receiver's REPORTKIT_VERIFICATION_TOKEN)",
          '  reportkit webhooks create --name local --uri http://127.0.0.1:3000/webhooks --secret "$REPORTKIT_SECRET" --token "$REPORTKIT_VERIFICATION_TOKEN" --challenge',
          "  reportkit trigger delivery --webhook <id>",
          "Push attempts are printed below. Ctrl-C stops.",
          "",
        ].join("\n"),
      );
      const signal = await io.stopSignal();
      io.stdout(`${signal}: stopping the sandbox\n`);
      await sandbox.close();
    });
}
