import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { insightsCommand } from "./commands/insights-command.js";
import { journalCommand } from "./commands/journal-command.js";
import { queueCommand } from "./commands/queue-command.js";
import { reconcileCommand } from "./commands/reconcile-command.js";
import { replayCommand } from "./commands/replay-command.js";
import { sandboxCommand } from "./commands/sandbox-command.js";
import { sendCommand } from "./commands/send-command.js";
import { triggerCommand } from "./commands/trigger-command.js";
import { webhooksCommand } from "./commands/webhooks-command.js";
import { CliError, type CliIo, processIo } from "./io.js";
import { terminalSafeIo } from "./terminal-safe.js";

/** The `reportkit` program, writing through `io`. */
export function createProgram(given: CliIo): Command {
  // Everything printed passes here: text from other parties cannot drive the terminal.
  const io = terminalSafeIo(given);
  const program = new Command("reportkit")
    .description(
      "Receive SMS delivery reports and call reports locally: run the provider sandbox, manage webhooks, push test reports.",
    )
    .version(version(), "-v, --version")
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride();
  // Subcommands made with .command() inherit the output and exit settings.
  sandboxCommand(program.command("sandbox"), io);
  webhooksCommand(program.command("webhooks"), io);
  sendCommand(program.command("send"), io);
  triggerCommand(program.command("trigger"), io);
  queueCommand(program.command("queue"), io);
  journalCommand(program.command("journal"), io);
  replayCommand(program.command("replay"), io);
  reconcileCommand(program.command("reconcile"), io);
  insightsCommand(program.command("insights"), io);
  return program;
}

/**
 * Runs the CLI and resolves with its exit code: 0 on success, non-zero with a one-line reason
 * on stderr otherwise.
 */
export async function main(argv: readonly string[] = process.argv, given: CliIo = processIo()) {
  const io = terminalSafeIo(given);
  const program = createProgram(given);
  try {
    await program.parseAsync([...argv]);
    return 0;
  } catch (error) {
    // Commander has already printed its own usage errors (and help/version, exit code 0).
    if (error instanceof CommanderError) return error.exitCode;
    const message = error instanceof Error ? error.message : String(error);
    // Our own option checks (CliError, the packages' TypeErrors named after their factory),
    // API failures and a store or Redis that failed (a StoreError: what failed on which
    // server, and why) are expected; anything else is a bug, and says so.
    const ours = /^(reportkit [a-z]+|redisJournal|postgresJournal|queueAdmin|queueStats): /;
    const known =
      error instanceof CliError ||
      (error instanceof Error &&
        (isClientError(error) || isStoreError(error) || ours.test(message)));
    const text = message.replace(ours, "");
    io.stderr(`reportkit: ${oneLine(known ? text : `unexpected error: ${text}`)}\n`);
    return error instanceof CliError ? error.exitCode : 1;
  }
}

/** A StoreError of @reportkit/core/adapter, by its name: the CLI has no runtime copy of core. */
function isStoreError(error: Error): boolean {
  return error.name === "StoreError";
}

function isClientError(error: Error): boolean {
  return [
    "ApiError",
    "InvalidResponseError",
    "RequestFailedError",
    "ResponseTooLargeError",
    "ReconcileIncompleteError",
    "ClientError",
  ].includes(error.name);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    return String(pkg.version);
  } catch {
    return "0.0.0";
  }
}
