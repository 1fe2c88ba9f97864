// What `reportkit trigger` and `reportkit send` share about the kind of push: its argument (the
// receiver's four kinds), the flags of a Click2Call, an opt-out and an event, and how they
// become the fields of the body, by the names the provider's pages give them.
import { NOTIFICATION_EVENTS, type NotificationEvent } from "@reportkit/sandbox";
import { REPORT_KINDS, type ReportKind } from "@reportkit/wire";
import { Argument, type Command } from "commander";
import { CliError } from "./io.js";

/** The flags of the kinds beyond a delivery report and an outbound-dial call's. */
export interface KindFlags {
  source?: string;
  event?: string;
  receiver?: string;
  type?: string;
  value?: string;
  text?: string;
  status?: string;
  mobile?: string;
  toNumber?: string;
  fromNumber?: string;
}

/** What each kind pushes by default: the provider's event of an opt-out, of another event. */
const DEFAULT_EVENT = { unsubscribe: "sms:unsubscription", event: "whatsapp:message:status" };

/** `<kind>`, one of the receiver's four, and the flags of a Click2Call, an opt-out and an event. */
export function withKinds(command: Command): Command {
  return command
    .addArgument(new Argument("<kind>", "which push").choices(REPORT_KINDS))
    .option("--source <source>", "call: OBD (an outbound dial, default) or C2C (a Click2Call)")
    .option(
      "--event <event>",
      `unsubscribe: the opt-out's event (default ${DEFAULT_EVENT.unsubscribe}, or voice:unsubscription, …); event: its name (default ${DEFAULT_EVENT.event}, or vmn:message:in, contacts:subscriber:subscription, link:visit, …)`,
    )
    .option("--receiver <digits>", "unsubscribe: the number that opted out")
    .option("--type <type>", "unsubscribe: what it opted out of, sender (default) or all")
    .option("--value <sender>", "unsubscribe: the sender id opted out of")
    .option("--text <text>", "event: an inbound message's text");
}

/**
 * Whether a call is a Click2Call (`--source C2C`).
 * @throws CliError for another source
 */
export function isClick2Call(flags: KindFlags): boolean {
  const source = (flags.source ?? "OBD").toUpperCase();
  if (source !== "OBD" && source !== "C2C") {
    throw new CliError(`--source must be OBD or C2C, got "${flags.source}".`);
  }
  return source === "C2C";
}

/**
 * The event an opt-out or an event is pushed as: --event, else the kind's default.
 * @throws CliError for an event that is not one of that kind the sandbox pushes
 */
export function eventOf(kind: Exclude<ReportKind, "delivery" | "call">, flags: KindFlags) {
  const event = flags.event ?? DEFAULT_EVENT[kind];
  const ofKind = NOTIFICATION_EVENTS.filter(
    (name) => name.endsWith(":unsubscription") === (kind === "unsubscribe"),
  );
  if (!(ofKind as readonly string[]).includes(event)) {
    throw new CliError(`--event of ${kind} must be ${ofKind.join(", ")}; got "${event}".`);
  }
  return event as NotificationEvent;
}

/**
 * The body's fields an opt-out's or an event's flags give, by their wire names (the sandbox
 * refuses one the event's body does not take, naming the ones it does).
 */
export function notificationFields(flags: KindFlags): Record<string, string> {
  const fields: Record<string, string | undefined> = {
    receiver: flags.receiver,
    type: flags.type,
    value: flags.value,
    status: flags.status,
    to: flags.toNumber,
    from: flags.fromNumber,
    mobile: flags.mobile,
    text: flags.text,
  };
  return Object.fromEntries(
    Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}
