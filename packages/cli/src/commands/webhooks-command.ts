import { type Client, createClient, type Webhook } from "@reportkit/client";
import { maskUrl } from "@reportkit/sandbox";
import { type Command, InvalidArgumentError, Option } from "commander";
import { parseDuration } from "../duration.js";
import { CliError, type CliIo } from "../io.js";
import {
  type ChallengeJson,
  challengeLine,
  type SandboxWebhookFacts,
  sandboxFacts,
  secretLine,
  sendChallenge,
  tokenLine,
} from "../sandbox-webhook.js";
import { formatRecord, formatTable } from "../table.js";

interface ConnectionOptions {
  baseUrl?: string;
  apiToken?: string;
  json?: boolean;
  timeout: string;
}

/** `reportkit webhooks list|create|show|edit|delete` against any base URL. */
export function webhooksCommand(webhooks: Command, io: CliIo): Command {
  webhooks.description(
    "manage webhooks through the management API (the real provider or the sandbox)",
  );

  withConnection(webhooks.command("list"))
    .description("list webhooks, one page (15) at a time")
    .option("--name <name>", "only webhooks whose name matches")
    .option("--page <n>", "page number", "1")
    .option("--all", "every page")
    .action(async (options: ConnectionOptions & { name?: string; page: string; all?: boolean }) => {
      const client = connect(options, io);
      if (options.all) {
        const all: Webhook[] = [];
        for await (const webhook of client.webhooks.iterate({ name: options.name })) {
          all.push(webhook);
        }
        if (options.json) return printJson(io, { data: all.map(plain) });
        io.stdout(`${webhookTable(all)}\n${all.length} webhook${all.length === 1 ? "" : "s"}\n`);
        return;
      }
      const page = await client.webhooks.list({
        name: options.name,
        page: wholeNumber(options.page, "--page", 1),
      });
      if (options.json) return printJson(io, { ...page, data: page.data.map(plain) });
      const { current, last, total } = page.page;
      io.stdout(
        `${webhookTable(page.data)}\npage ${current} of ${last}, ${total} webhook${total === 1 ? "" : "s"}\n`,
      );
    });

  withConnection(webhooks.command("create"))
    .description("register a webhook")
    .requiredOption("--name <name>", "name of the webhook")
    .requiredOption("--uri <url>", "URL that receives the pushed reports")
    .addOption(statusOption())
    .option("--secret <secret>", SECRET_HELP)
    .option("--token <token>", TOKEN_HELP)
    .addOption(new Option("--verification-token <token>", "alias of --token").hideHelp())
    .option(
      "--challenge",
      "sandbox: print the outcome of the verification it sends a webhook created with a token, and exit 1 when it failed",
    )
    .action(async (options: ConnectionOptions & WebhookFlags & { name: string; uri: string }) => {
      const webhook = await connect(options, io).webhooks.create({
        name: options.name,
        uri: options.uri,
        status: options.status,
        secret: options.secret,
        token: tokenOf(options),
      });
      await printWebhook(io, webhook, options, "Created", "created");
    });

  withConnection(webhooks.command("show"))
    .description("show one webhook")
    .argument("<id>", "webhook id")
    .action(async (id: string, options: ConnectionOptions) => {
      await printWebhook(io, await connect(options, io).webhooks.get(id), options, undefined);
    });

  withConnection(webhooks.command("edit"))
    .description("change a webhook (name and uri are kept unless given)")
    .argument("<id>", "webhook id")
    .option("--name <name>", "new name")
    .option("--uri <url>", "new receiving URL")
    .addOption(statusOption())
    .option("--secret <secret>", `new secret: ${SECRET_HELP}`)
    .option("--token <token>", `new token: ${TOKEN_HELP}`)
    .addOption(new Option("--verification-token <token>", "alias of --token").hideHelp())
    .option(
      "--challenge",
      "sandbox: then send the webhook its verification request, print the outcome, and exit 1 when it failed",
    )
    .action(
      async (
        id: string,
        options: ConnectionOptions & WebhookFlags & { name?: string; uri?: string },
      ) => {
        const client = connect(options, io);
        let { name, uri } = options;
        // The API requires name and uri on every edit: keep the current ones when not given.
        if (name === undefined || uri === undefined) {
          const current = await client.webhooks.get(id);
          name ??= current.name;
          uri ??= current.uri;
        }
        const webhook = await client.webhooks.update(id, {
          name,
          uri,
          status: options.status,
          secret: options.secret,
          token: tokenOf(options),
        });
        await printWebhook(io, webhook, options, "Updated", "edited");
      },
    );

  withConnection(webhooks.command("delete"))
    .description("delete a webhook")
    .argument("<id>", "webhook id")
    .action(async (id: string, options: ConnectionOptions) => {
      await connect(options, io).webhooks.delete(id);
      if (options.json) printJson(io, { deleted: id });
      else io.stdout(`Deleted webhook ${id}\n`);
    });

  return webhooks;
}

// As the provider's pages say (its verification page): the secret is sent with every push, the
// token once, to verify the webhook.
const SECRET_HELP =
  "the webhook's secret: sent as `Authorization: Bearer <secret>` with every push (your receiver's REPORTKIT_SECRET)";
const TOKEN_HELP =
  "the webhook's token, the validation key: sent once, to verify the webhook when it is created (POST <uri>?token=<token> with {validation_key, challenge}; your receiver's REPORTKIT_VERIFICATION_TOKEN)";

interface WebhookFlags {
  status?: 0 | 1;
  secret?: string;
  token?: string;
  verificationToken?: string;
  challenge?: boolean;
}

function tokenOf(flags: WebhookFlags): string | undefined {
  if (flags.token !== undefined && flags.verificationToken !== undefined) {
    throw new CliError("give --token or its alias --verification-token, not both.");
  }
  return flags.token ?? flags.verificationToken;
}

function withConnection(command: Command): Command {
  // The environment is read in connect(), from the injected io, not by commander.
  return command
    .option("--base-url <url>", "management API base, ending in /api/v2/ (env: REPORTKIT_BASE_URL)")
    .option("--api-token <token>", "the account's API access token (env: REPORTKIT_API_TOKEN)")
    .option("--timeout <duration>", "give up on a request after this long", "30s")
    .option("--json", "print JSON instead of a table");
}

function statusOption(): Option {
  return new Option("--status <status>", "1 or active, 0 or inactive").argParser((value) => {
    if (value === "1" || value === "active") return 1;
    if (value === "0" || value === "inactive") return 0;
    throw new InvalidArgumentError("Use 1 (or active) or 0 (or inactive).");
  });
}

function connect(options: ConnectionOptions, io: CliIo): Client {
  const { baseUrl, token, timeoutMs } = connection(options, io);
  try {
    return createClient({ baseUrl, token, timeoutMs });
  } catch (error) {
    throw new CliError((error as Error).message.replace(/^reportkit client: /, ""));
  }
}

function connection(options: ConnectionOptions, io: CliIo) {
  const baseUrl = options.baseUrl ?? io.env.REPORTKIT_BASE_URL;
  const token = options.apiToken ?? io.env.REPORTKIT_API_TOKEN;
  if (baseUrl === undefined || baseUrl === "") {
    throw new CliError(
      "no base URL: pass --base-url or set REPORTKIT_BASE_URL (e.g. http://127.0.0.1:4010/api/v2/ for `reportkit sandbox`).",
    );
  }
  if (token === undefined || token === "") {
    throw new CliError("no API token: pass --api-token or set REPORTKIT_API_TOKEN.");
  }
  const timeoutMs = parseDuration(options.timeout, "--timeout");
  if (timeoutMs < 1)
    throw new CliError(`--timeout must be at least 1ms; got "${options.timeout}".`);
  return { baseUrl, token, timeoutMs };
}

function wholeNumber(text: string, option: string, min: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min) {
    throw new CliError(`${option} must be a whole number from ${min}, got "${text}".`);
  }
  return Number(text);
}

/** The webhook without `raw`, dates as ISO strings: what --json prints. */
function plain(webhook: Webhook) {
  const { raw: _, ...rest } = webhook;
  return rest;
}

function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

function when(date: Date | null): string {
  return date === null ? "-" : `${date.toISOString().slice(0, 19).replace("T", " ")}Z`;
}

function webhookTable(list: readonly Webhook[]): string {
  if (list.length === 0) return "(no webhooks)";
  return formatTable(
    ["ID", "NAME", "STATUS", "CREATED", "URI"],
    list.map((w) => [
      w.id,
      w.name,
      w.active ? "active" : "inactive",
      when(w.createdAt),
      maskUrl(w.uri),
    ]),
  );
}

/**
 * The webhook, with what only the sandbox tells (which credentials are set, never a value, and
 * the last verification's outcome). With --challenge: after a create, the outcome of the
 * verification the sandbox sent before answering (a create with a token is verified, as the
 * provider does); after an edit, of a verification sent now; exit 1 when it did not pass.
 */
async function printWebhook(
  io: CliIo,
  webhook: Webhook,
  options: ConnectionOptions & { challenge?: boolean },
  verb: string | undefined,
  change?: "created" | "edited",
): Promise<void> {
  const sandbox = connection(options, io);
  let facts: SandboxWebhookFacts | undefined = await sandboxFacts(sandbox, webhook.id);
  let challenge: ChallengeJson | undefined;
  if (options.challenge && facts !== undefined) {
    challenge =
      change === "created" && facts.challenge !== null
        ? facts.challenge
        : await sendChallenge(sandbox, webhook.id);
    facts = (await sandboxFacts(sandbox, webhook.id)) ?? facts;
  }
  const verification = challenge ?? facts?.challenge ?? undefined;
  if (options.json) {
    printJson(io, {
      ...plain(webhook),
      ...(facts === undefined ? {} : { bearer: facts.bearer, token: facts.token }),
      ...(options.challenge ? { challenge: challenge ?? null } : {}),
    });
  } else {
    const verificationRow: [string, string][] =
      verification !== undefined
        ? [["verification", challengeLine(verification)]]
        : options.challenge
          ? [["verification", "not shown by this API (only the sandbox reports it)"]]
          : [];
    const lines = formatRecord([
      ["id", webhook.id],
      ["name", webhook.name],
      // A password in the URI stays off the screen (--json prints the API's data as served).
      ["uri", maskUrl(webhook.uri)],
      ["status", `${webhook.status} (${webhook.active ? "active" : "inactive"})`],
      // The API serves both masked; the sandbox says which is set, never a value.
      ["secret", facts === undefined ? (webhook.secret ?? "-") : secretLine(facts)],
      [
        "token",
        facts === undefined
          ? `${webhook.verificationCode ?? "-"} (the API's masked verification_code)`
          : tokenLine(facts),
      ],
      ...verificationRow,
      ["created", when(webhook.createdAt)],
      ["updated", when(webhook.updatedAt)],
    ]);
    io.stdout(`${verb === undefined ? "" : `${verb} webhook ${webhook.id}\n`}${lines}\n`);
  }
  if (challenge !== undefined && !challenge.passed) {
    throw new CliError(`the verification ${challengeLine(challenge)}`);
  }
}
