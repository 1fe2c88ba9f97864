import { randomUUID } from "node:crypto";
import { redactor } from "@reportkit/client/internal";
import {
  buildCallReport,
  buildClick2CallReport,
  buildDeliveryReport,
  buildNotification,
  createPusher,
  FieldErrors,
  formatAttempt,
  notificationOverrides,
  type PushAttempt,
  pushAttemptJson,
  type ReportClock,
  standardPush,
} from "@reportkit/sandbox";
import { PROVIDER_TIME_ZONE, type ReportKind } from "@reportkit/wire";
import type { Command } from "commander";
import { formatDuration, parseDuration } from "../duration.js";
import { CliError, type CliIo } from "../io.js";
import {
  eventOf,
  isClick2Call,
  type KindFlags,
  notificationFields,
  withKinds,
} from "../kind-flags.js";
import { cut, lineWriter, oneLine } from "../table.js";
import { type SecretFlags, secretOf, withSecretOptions } from "../webhook-secret.js";

interface SendFlags extends SecretFlags, KindFlags {
  to: string;
  webhookId?: string;
  retries: string;
  interval: string;
  timeout: string;
  timeZone: string;
  json?: boolean;
}

/**
 * `reportkit send delivery|call|unsubscribe|event`: one realistic report (an outbound dial's or
 * a Click2Call's call report), opt-out or event, pushed with the provider's retry loop, quick by
 * default (3 retries 2 s apart, not the provider's 30 minutes: a one-off send is someone waiting
 * at a terminal).
 */
export function sendCommand(command: Command, io: CliIo): Command {
  withKinds(
    command.description("push one realistic report, opt-out or event straight to a receiver"),
  ).requiredOption("--to <url>", "the receiver's URL");
  return withSecretOptions(command, "sent as Bearer, as the provider sends it with every push")
    .option("--webhook-id <id>", "call: webhook_id in the report (default a new UUID)")
    .option("--retries <n>", "retries after a failed attempt (provider: 3)", "3")
    .option("--interval <duration>", "wait between attempts (provider: 30m)", "2s")
    .option("--timeout <duration>", "how long to wait for the receiver's answer", "10s")
    .option("--time-zone <zone>", "zone of the wall-clock times", PROVIDER_TIME_ZONE)
    .option("--json", "print the report and the attempts as JSON")
    .action(async (kind: ReportKind, flags: SendFlags) => {
      // Everything printed goes through `hide`: a receiver that echoes the Authorization
      // header (or the secret) in its reply must not make the CLI print the secret.
      const secret = secretOf(flags, io.env);
      const hide = redactor(secret ?? "");
      const stdout = (text: string) => io.stdout(hide(text));
      const line = lineWriter(hide);
      let url: URL;
      try {
        url = new URL(flags.to);
      } catch {
        throw new CliError(`--to must be an absolute http(s) URL, got "${flags.to}".`);
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        throw new CliError(`--to must be an http or https URL, got "${flags.to}".`);
      }
      if (!/^\d+$/.test(flags.retries)) {
        throw new CliError(`--retries must be a whole number, got "${flags.retries}".`);
      }
      const retries = Number(flags.retries);
      const retryIntervalMs = parseDuration(flags.interval, "--interval");
      const timeoutMs = parseDuration(flags.timeout, "--timeout");
      const clock = { now: new Date(), timeZone: flags.timeZone };
      let built: Push;
      try {
        built = buildPush(kind, flags, clock);
      } catch (error) {
        if (error instanceof FieldErrors) throw new CliError(error.message);
        throw error;
      }
      const { report, reportId, what, event } = built;
      if (secret === undefined) {
        io.stderr(
          "reportkit: no secret set (--secret or REPORTKIT_SECRET): sending without Authorization; a receiver that checks the webhook's secret answers 401.\n",
        );
      }
      const attempts: PushAttempt[] = [];
      const pusher = createPusher({
        retries,
        retryIntervalMs,
        timeoutMs,
        onAttempt(attempt) {
          attempts.push(attempt);
          if (flags.json) return;
          const reply =
            attempt.outcome !== "delivered" && attempt.responseBody
              ? line`  reply: ${cut(attempt.responseBody)}`
              : "";
          stdout(line`${formatAttempt(attempt)}` + reply);
        },
      });
      if (!flags.json) {
        stdout(
          `${what} ${reportId} → ${url.href} (1 + ${retries} attempts, ${formatDuration(retryIntervalMs)} apart)\n${JSON.stringify(report, null, 2)}\n`,
        );
      }
      const outcome = await pusher.push({
        reportId,
        reportType: kind,
        ...(event !== undefined && { event }),
        webhookId: null,
        request: standardPush(url.href, report, secret ?? null),
      });
      if (flags.json) {
        stdout(
          `${JSON.stringify({ outcome, report, attempts: attempts.map((a) => pushAttemptJson(a)) }, null, 2)}\n`,
        );
      }
      if (outcome !== "delivered") {
        const last = attempts.at(-1);
        const reply = last?.responseBody ? `: ${oneLine(hide(last.responseBody))}` : "";
        const why =
          last?.statusCode != null ? `status ${last.statusCode}${reply}` : (last?.error ?? "");
        throw new CliError(
          hide(
            `the receiver did not accept the report: dropped after ${attempts.length} attempt${attempts.length === 1 ? "" : "s"} (last: ${why}).`,
          ),
        );
      }
    });
}

/** A push to send: its body, what the push log knows it by, its name and its event. */
interface Push {
  report: object;
  reportId: string;
  what: string;
  event?: string;
}

/**
 * The push of `kind` the flags describe.
 * @throws FieldErrors naming a field the builders refuse
 */
function buildPush(kind: ReportKind, flags: SendFlags, clock: ReportClock): Push {
  if (kind === "unsubscribe" || kind === "event") {
    const event = eventOf(kind, flags);
    const overrides = notificationOverrides(event, notificationFields(flags));
    const { payload, reportId } = buildNotification(event, overrides, clock);
    return { report: payload, reportId, what: `${kind} ${event}`, event };
  }
  if (kind === "delivery") {
    const dlr = buildDeliveryReport(
      {
        mobile: flags.mobile,
        status: flags.status,
        custom: flags.custom,
        units: flags.units === undefined ? undefined : numberOf(flags.units, "--units"),
        credits: flags.credits,
      },
      clock,
    );
    return { report: dlr, reportId: dlr.id, what: "delivery report" };
  }
  const call = {
    to: flags.toNumber,
    from: flags.fromNumber,
    bridge: flags.bridge,
    duration: flags.duration === undefined ? undefined : numberOf(flags.duration, "--duration"),
  };
  const webhookId = flags.webhookId ?? randomUUID();
  if (isClick2Call(flags)) {
    // A Click2Call's status is its second leg's; it has no mid: the log knows it by a call id.
    const report = buildClick2CallReport(webhookId, { ...call, status2: flags.status }, clock);
    return { report, reportId: randomUUID(), what: "call report (Click2Call)" };
  }
  const report = buildCallReport(webhookId, { ...call, status: flags.status }, clock);
  return { report, reportId: report.mid, what: "call report" };
}

function numberOf(text: string, option: string): number {
  if (!/^\d+$/.test(text)) throw new CliError(`${option} must be a whole number, got "${text}".`);
  return Number(text);
}
