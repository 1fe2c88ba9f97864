import type { ReportKind } from "@reportkit/wire";
import type { Command } from "commander";
import { parseDuration } from "../duration.js";
import { CliError, type CliIo } from "../io.js";
import {
  eventOf,
  isClick2Call,
  type KindFlags,
  notificationFields,
  withKinds,
} from "../kind-flags.js";
import { oneLine } from "../table.js";
import { inline } from "../terminal-safe.js";

interface TriggerFlags extends KindFlags {
  webhook?: string;
  message?: string;
  wait?: boolean;
  json?: boolean;
  baseUrl?: string;
  apiToken?: string;
  timeout: string;
}

/** A push attempt as the sandbox's push log serves it. */
interface AttemptJson {
  attempt: number;
  max_attempts: number;
  status_code: number | null;
  error: string | null;
  outcome: "delivered" | "retrying" | "dropped" | "skipped";
  at: string;
  duration_ms: number;
  next_attempt_at: string | null;
  method: string;
  url: string;
  response_body: string | null;
}

const POLL_MS = 250;

/**
 * `reportkit trigger delivery|call|unsubscribe|event --webhook <id>`: asks a running sandbox to
 * send an SMS, make a call (an outbound dial's or a Click2Call), or push an opt-out or another
 * event, so it pushes it to the webhook with its own retries (and its terminal and dashboard
 * show the attempts). An opt-out or an event goes to the webhook subscribed to its event, as at
 * the provider: `--webhook` subscribes that one first.
 */
export function triggerCommand(command: Command, io: CliIo): Command {
  return withKinds(
    command.description("ask a running sandbox to push a report, an opt-out or an event"),
  )
    .option(
      "--webhook <id>",
      "the sandbox webhook that receives it (an opt-out or event: subscribed to its event first); default the one subscribed",
    )
    .option("--message <text>", "delivery: the message (only its length counts, for units)")
    .option("--wait", "print each push attempt and exit once the report is delivered or dropped")
    .option("--json", "print the sandbox's answer (and with --wait the attempts) as JSON")
    .option("--base-url <url>", "the sandbox's API base (env: REPORTKIT_BASE_URL)")
    .option("--api-token <token>", "the sandbox's API token (env: REPORTKIT_API_TOKEN)")
    .option("--timeout <duration>", "give up on a request to the sandbox after this long", "30s")
    .action(async (kind: ReportKind, flags: TriggerFlags) => {
      const sandbox = connect(flags, io);
      const { path, body, what } = requestOf(kind, flags);
      const sent = (await sandbox.request("POST", path, body)) as {
        message: string;
        data: {
          report_id: string;
          webhook_id: string;
          pushed: boolean;
          subscribed?: boolean;
          report: unknown;
        };
      };
      const { report_id: reportId, webhook_id: webhookId, pushed, subscribed } = sent.data;
      if (!flags.json) {
        const via = subscribed ? ` (subscribed to ${body.event} now)` : "";
        io.stdout(
          `${what} ${reportId} → webhook ${webhookId}${via}: ${pushed ? "queued, the sandbox is pushing it" : "not pushed, the webhook is inactive"}\n`,
        );
      }
      if (!flags.wait) {
        if (flags.json) io.stdout(`${JSON.stringify(sent.data, null, 2)}\n`);
        return;
      }
      const attempts = await follow(sandbox, reportId, (a) => {
        if (!flags.json) io.stdout(`${inline(attemptLine(a))}\n`);
      });
      if (flags.json) io.stdout(`${JSON.stringify({ ...sent.data, attempts }, null, 2)}\n`);
      const last = attempts.at(-1);
      if (last?.outcome !== "delivered") {
        throw new CliError(
          last?.outcome === "skipped"
            ? `the report was not pushed: ${last.error ?? "skipped"}.`
            : `the receiver did not accept the report: dropped after ${last?.attempt} attempts.`,
        );
      }
    });
}

/** The sandbox endpoint, body and words for a push of `kind` with these flags. */
function requestOf(
  kind: ReportKind,
  flags: TriggerFlags,
): { path: string; body: Record<string, unknown>; what: string } {
  const body: Record<string, unknown> = {};
  const put = (name: string, value: unknown) => {
    if (value !== undefined) body[name] = value;
  };
  put("webhook_id", flags.webhook);
  if (kind === "unsubscribe" || kind === "event") {
    const event = eventOf(kind, flags);
    Object.assign(body, { event, ...notificationFields(flags) });
    return { path: "sandbox/notifications", body, what: `${kind} ${event}` };
  }
  if (kind === "delivery") {
    put("status", flags.status);
    put("mobile", flags.mobile);
    put("custom", flags.custom);
    put("units", flags.units === undefined ? undefined : whole(flags.units, "--units"));
    put("credits", flags.credits);
    put("message", flags.message);
    return { path: "sandbox/sms", body, what: "delivery report" };
  }
  const click2Call = isClick2Call(flags);
  // A Click2Call's status is its second leg's: the call is COMPLETED when that one answers.
  put(click2Call ? "status2" : "status", flags.status);
  put("to", flags.toNumber);
  put("from", flags.fromNumber);
  put("bridge", flags.bridge);
  put("duration", flags.duration === undefined ? undefined : whole(flags.duration, "--duration"));
  return click2Call
    ? { path: "sandbox/c2c", body, what: "call report (Click2Call)" }
    : { path: "sandbox/calls", body, what: "call report" };
}

interface SandboxConnection {
  request(method: string, path: string, body?: unknown): Promise<unknown>;
}

function connect(flags: TriggerFlags, io: CliIo): SandboxConnection {
  const given = flags.baseUrl ?? io.env.REPORTKIT_BASE_URL;
  const token = flags.apiToken ?? io.env.REPORTKIT_API_TOKEN;
  if (given === undefined || given === "") {
    throw new CliError(
      "no sandbox: pass --base-url or set REPORTKIT_BASE_URL to the URL `reportkit sandbox` printed (e.g. http://127.0.0.1:4010/api/v2/).",
    );
  }
  if (token === undefined || token === "") {
    throw new CliError(
      "no API token: pass --api-token or set REPORTKIT_API_TOKEN to the token `reportkit sandbox` printed.",
    );
  }
  let base: URL;
  try {
    base = new URL(given.endsWith("/") ? given : `${given}/`);
  } catch {
    throw new CliError(`--base-url must be an absolute http(s) URL, got "${given}".`);
  }
  const timeoutMs = parseDuration(flags.timeout, "--timeout");
  return {
    async request(method, path, body) {
      const url = new URL(path, base);
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers: {
            accept: "application/json",
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(Math.max(timeoutMs, 1)),
        });
      } catch (error) {
        const { cause } = error as { cause?: { code?: string; message?: string } };
        const why = cause?.code ?? cause?.message ?? (error as Error).name;
        throw new CliError(
          `could not reach the sandbox at ${base.href} (${why}): is \`reportkit sandbox\` running there?`,
        );
      }
      const text = await response.text();
      let json: { message?: string; errors?: Record<string, string[]> } | undefined;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      if (response.ok && json !== undefined) return json;
      if (response.status === 404 && /could not be found/.test(json?.message ?? "")) {
        throw new CliError(
          `${method} ${path} failed with 404: ${base.href} is not a reportkit sandbox (trigger only works against \`reportkit sandbox\`).`,
        );
      }
      const details = Object.values(json?.errors ?? {}).flat();
      const why = details.length > 0 ? details.join(" ") : (json?.message ?? text.slice(0, 300));
      const hint = response.status === 401 ? " (check REPORTKIT_API_TOKEN / --api-token)" : "";
      throw new CliError(`${method} ${path} failed with ${response.status}: ${why}${hint}`);
    },
  };
}

/** Polls the push log until the report is delivered, dropped or skipped. */
async function follow(
  sandbox: SandboxConnection,
  reportId: string,
  onAttempt: (attempt: AttemptJson) => void,
): Promise<AttemptJson[]> {
  const seen: AttemptJson[] = [];
  for (;;) {
    const log = (await sandbox.request(
      "GET",
      `sandbox/push-attempts?report_id=${encodeURIComponent(reportId)}`,
    )) as { data: AttemptJson[] };
    for (const attempt of log.data.slice(seen.length)) {
      seen.push(attempt);
      onAttempt(attempt);
      if (attempt.outcome !== "retrying") return seen;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function attemptLine(a: AttemptJson): string {
  const time = new Date(a.at).toTimeString().slice(0, 8);
  if (a.outcome === "skipped") return `${time} ${a.method} ${a.url}  skipped: ${a.error ?? ""}`;
  const result = a.status_code !== null ? String(a.status_code) : (a.error ?? "failed");
  const next =
    a.outcome === "retrying" && a.next_attempt_at !== null
      ? `  retry at ${new Date(a.next_attempt_at).toTimeString().slice(0, 8)}`
      : "";
  const reply =
    a.outcome !== "delivered" && a.response_body ? `  reply: ${oneLine(a.response_body)}` : "";
  return `${time} ${a.method} ${a.url}  #${a.attempt}/${a.max_attempts}  ${result}  ${a.outcome}${next}${reply}`;
}

function whole(text: string, option: string): number {
  if (!/^\d+$/.test(text)) throw new CliError(`${option} must be a whole number, got "${text}".`);
  return Number(text);
}
