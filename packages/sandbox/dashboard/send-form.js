// The "send a test report" form: an SMS delivery report or a call report to one webhook.
import { api } from "./api.js";
import { $ } from "./dom.js";

function currentKind() {
  return $("kind-call").checked ? "call" : "sms";
}

/** Shows the fields and status suggestions of the kind of report chosen. */
export function showKind() {
  const kind = currentKind();
  const status = $("send-status");
  status.setAttribute("list", kind === "call" ? "call-statuses" : "sms-statuses");
  status.placeholder = kind === "call" ? "ANSWER" : "DELIVRD";
  document.querySelector("#send-form .sms-only").hidden = kind === "call";
  document.querySelector("#send-form .call-only").hidden = kind !== "call";
  $("send-submit").textContent = kind === "call" ? "Make call" : "Send SMS";
}

export async function submitSend(event) {
  event.preventDefault();
  const fields = $("send-form").elements;
  const kind = currentKind();
  const body = { webhook_id: fields.webhook_id.value };
  const put = (name, value) => {
    if (value.trim() !== "") body[name] = value.trim();
  };
  put("status", fields.status.value);
  if (kind === "sms") {
    put("mobile", fields.mobile.value);
    put("custom", fields.custom.value);
    put("message", fields.message.value);
  } else {
    put("to", fields.to.value);
    if (fields.duration.value !== "") body.duration = Number(fields.duration.value);
  }
  const result = $("send-result");
  if (!body.webhook_id) {
    result.textContent = "Create a webhook first.";
    return;
  }
  result.textContent = "Sending…";
  try {
    const sent = await api("POST", kind === "call" ? "sandbox/calls" : "sandbox/sms", body);
    result.textContent = `${sent.message}: report ${sent.data.report_id}`;
  } catch (error) {
    result.textContent = `Not sent: ${error.message}`;
  }
}
