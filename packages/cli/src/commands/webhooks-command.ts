import { type Client, createClient, type Webhook } from "@reportkit/client";
import { maskUrl } from "@reportkit/sandbox";
import { type Command, InvalidArgumentError, Option } from "commander";
import { parseDuration } from "../duration.js";
import { CliError, type CliIo } from "../io.js";
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
    .option("--secret <secret>", "secret of the webhook")
    .option("--verification-token <token>", "token for the provider's verification challenge")
    .action(
      async (
        options: ConnectionOptions & {
          name: string;
          uri: string;
          status?: 0 | 1;
          secret?: string;
          verificationToken?: string;
        },
      ) => {
        const webhook = await connect(options, io).webhooks.create({
          name: options.name,
          uri: options.uri,
          status: options.status,
          secret: options.secret,
          token: options.verificationToken,
        });
        printWebhook(io, webhook, options.json, "Created");
      },
    );

  withConnection(webhooks.command("show"))
    .description("show one webhook")
    .argument("<id>", "webhook id")
    .action(async (id: string, options: ConnectionOptions) => {
      printWebhook(io, await connect(options, io).webhooks.get(id), options.json);
    });

  withConnection(webhooks.command("edit"))
    .description("change a webhook (name and uri are kept unless given)")
    .argument("<id>", "webhook id")
    .option("--name <name>", "new name")
    .option("--uri <url>", "new receiving URL")
    .addOption(statusOption())
    .option("--secret <secret>", "new secret")
    .action(
      async (
        id: string,
        options: ConnectionOptions & {
          name?: string;
          uri?: string;
          status?: 0 | 1;
          secret?: string;
        },
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
        });
        printWebhook(io, webhook, options.json, "Updated");
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
  try {
    return createClient({ baseUrl, token, timeoutMs });
  } catch (error) {
    throw new CliError((error as Error).message.replace(/^reportkit client: /, ""));
  }
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

function printWebhook(io: CliIo, webhook: Webhook, json?: boolean, verb?: string): void {
  if (json) {
    printJson(io, plain(webhook));
    return;
  }
  const lines = formatRecord([
    ["id", webhook.id],
    ["name", webhook.name],
    // A password in the URI stays off the screen (--json prints the API's data as served).
    ["uri", maskUrl(webhook.uri)],
    ["status", `${webhook.status} (${webhook.active ? "active" : "inactive"})`],
    ["secret", webhook.secret ?? "-"],
    ["verification", webhook.verificationCode ?? "-"],
    ["created", when(webhook.createdAt)],
    ["updated", when(webhook.updatedAt)],
  ]);
  io.stdout(`${verb === undefined ? "" : `${verb} webhook ${webhook.id}\n`}${lines}\n`);
}
