// The "send a test report" form: to one webhook, an SMS delivery report, a call report (an
// outbound dial's or a Click2Call's), an opt-out or another event, each with the fields it takes.
import { api } from "./api.js";
import { $ } from "./dom.js";

/** Each kind: the sandbox endpoint, the status's suggestions, placeholder and label, the button. */
const KINDS = {
  sms: { path: "sandbox/sms", statuses: "sms-statuses", status: "DELIVRD", button: "Send SMS" },
  call: { path: "sandbox/calls", statuses: "call-statuses", status: "ANSWER", button: "Make call" },
  c2c: {
    path: "sandbox/c2c",
    statuses: "c2c-statuses",
    status: "ANSWER",
    label: "Status of the second leg (the call is COMPLETED when it answers)",
    button: "Make Click2Call",
  },
  unsubscribe: { path: "sandbox/notifications", button: "Opt out" },
  event: {
    path: "sandbox/notifications",
    statuses: "event-statuses",
    status: "delivered",
    label: "Status (a message status: sent … read; a contact: created or updated)",
    button: "Push event",
  },
};

/** The provider's events, by the kind of push they are (from the live feed's snapshot). */
let events = { unsubscribe: [], event: [] };
/** The kind shown last: a status typed for one kind is cleared when another is chosen. */
let shownKind = "sms";

function currentKind() {
  return document.querySelector('#send-form input[name="kind"]:checked')?.value ?? "sms";
}

/** Fills the event picker with the events the sandbox pushes (the snapshot lists them). */
export function setEvents(names) {
  events = {
    unsubscribe: names.filter((name) => name.endsWith(":unsubscription")),
    event: names.filter((name) => !name.endsWith(":unsubscription")),
  };
  showKind();
}

/** Shows the fields and status suggestions of the kind of report chosen. */
export function showKind() {
  const kind = currentKind();
  const facts = KINDS[kind];
  const status = $("send-status");
  const form = $("send-form");
  if (kind !== shownKind) status.value = "";
  shownKind = kind;
  if (facts.statuses) status.setAttribute("list", facts.statuses);
  status.placeholder = facts.status ?? "";
  $("send-status-label").textContent = facts.label ?? "Status";
  form.querySelector(".status-field").hidden = kind === "unsubscribe";
  form.querySelector(".sms-only").hidden = kind !== "sms";
  form.querySelector(".call-only").hidden = kind !== "call" && kind !== "c2c";
  form.querySelector(".unsubscribe-only").hidden = kind !== "unsubscribe";
  const notification = kind === "unsubscribe" || kind === "event";
  form.querySelector(".notification-only").hidden = !notification;
  if (notification) {
    const select = $("send-event");
    const chosen = select.value;
    select.replaceChildren(
      ...events[kind].map((name) => {
        const option = document.createElement("option");
        option.value = name;
        option.textContent = name;
        return option;
      }),
    );
    if (events[kind].includes(chosen)) select.value = chosen;
  }
  $("send-submit").textContent = facts.button;
}

/** The request's body: the webhook, and each field the kind takes that was filled in. */
function bodyOf(kind, fields) {
  const body = { webhook_id: fields.webhook_id.value };
  const put = (name, value) => {
    if (value.trim() !== "") body[name] = value.trim();
  };
  if (kind === "unsubscribe" || kind === "event") body.event = fields.event.value;
  if (kind !== "unsubscribe") put(kind === "c2c" ? "status2" : "status", fields.status.value);
  if (kind === "sms") {
    put("mobile", fields.mobile.value);
    put("custom", fields.custom.value);
    put("message", fields.message.value);
  } else if (kind === "call" || kind === "c2c") {
    put("to", fields.to.value);
    if (fields.duration.value !== "") body.duration = Number(fields.duration.value);
  } else if (kind === "unsubscribe") {
    put("receiver", fields.receiver.value);
    body.type = fields.type.value;
    if (fields.type.value === "sender") put("value", fields.value.value);
  }
  return body;
}

export async function submitSend(event) {
  event.preventDefault();
  const kind = currentKind();
  const body = bodyOf(kind, $("send-form").elements);
  const result = $("send-result");
  if (!body.webhook_id) {
    result.textContent = "Create a webhook first.";
    return;
  }
  result.textContent = "Sending…";
  try {
    const sent = await api("POST", KINDS[kind].path, body);
    const subscribed = sent.data.subscribed ? ` (subscribed the webhook to ${body.event})` : "";
    result.textContent = `${sent.message}: report ${sent.data.report_id}${subscribed}`;
  } catch (error) {
    result.textContent = `Not sent: ${error.message}`;
  }
}
