// What `reportkit trigger` and `reportkit send` share about the push: its kind (the receiver's
// four), the flags of its fields (a delivery report's, a call's, a Click2Call's, an opt-out's and
// an event's), and how an opt-out's or an event's become the fields of its body, by the names
// the provider's pages give them.
import { NOTIFICATION_EVENTS, type NotificationEvent } from "@reportkit/sandbox";
import { REPORT_KINDS, type ReportKind } from "@reportkit/wire";
import { Argument, type Command } from "commander";
import { CliError } from "./io.js";

/** The flags of a push's fields. */
export interface KindFlags {
  status?: string;
  mobile?: string;
  custom?: string;
  units?: string;
  credits?: string;
  toNumber?: string;
  fromNumber?: string;
  bridge?: string;
  duration?: string;
  source?: string;
  event?: string;
  receiver?: string;
  type?: string;
  value?: string;
  text?: string;
}

/** What each kind pushes by default: the provider's event of an opt-out, of another event. */
const DEFAULT_EVENT = { unsubscribe: "sms:unsubscription", event: "whatsapp:message:status" };

/** `<kind>`, one of the receiver's four, and the flags of each kind's fields. */
export function withKinds(command: Command): Command {
  return command
    .addArgument(new Argument("<kind>", "which push").choices(REPORT_KINDS))
    .option(
      "--status <status>",
      "report status (default DELIVRD / ANSWER; a Click2Call's second leg; an event's: delivered, read, …)",
    )
    .option(
      "--mobile <digits>",
      "delivery: mobile number with country code; link:visit: the visitor's",
    )
    .option("--custom <id>", "delivery: the client's custom id")
    .option("--units <n>", "delivery: SMS parts")
    .option("--credits <n>", "delivery: credits charged")
    .option(
      "--to-number <digits>",
      "call: the number the call connected to (a Click2Call's also flow:<id>); event: the number messaged",
    )
    .option("--from-number <digits>", "call: the from number; event: who sent the message")
    .option("--bridge <digits>", "call: the DID that initiated the call")
    .option("--duration <seconds>", "call: duration in seconds")
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
