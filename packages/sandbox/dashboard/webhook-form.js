// The webhook form: creates a webhook, or edits the one picked in the list.
import { api } from "./api.js";
import { $ } from "./dom.js";
import { challengeText } from "./webhook-facts.js";

/** The id of the webhook being edited; null while the form creates one. */
let editing = null;

export function editingWebhookId() {
  return editing;
}

export function editWebhook(webhook) {
  const form = $("webhook-form");
  editing = webhook.id;
  form.elements.name.value = webhook.name;
  form.elements.uri.value = webhook.uri;
  form.elements.secret.value = "";
  form.elements.secret.placeholder = webhook.secret ? "unchanged unless typed" : "";
  form.elements.token.value = "";
  form.elements.token.placeholder = webhook.token?.set ? "unchanged unless typed" : "";
  form.elements.challenge.checked = false;
  form.elements.active.checked = webhook.status === "1";
  for (const node of form.querySelectorAll(".create-only")) node.hidden = true;
  $("webhook-form-title").textContent = `Edit webhook ${webhook.name}`;
  $("webhook-submit").textContent = "Save changes";
  $("webhook-cancel").hidden = false;
  $("webhook-error").textContent = "";
  form.elements.name.focus();
}

export function resetWebhookForm() {
  const form = $("webhook-form");
  editing = null;
  form.reset();
  form.elements.secret.placeholder = "";
  form.elements.token.placeholder = "";
  for (const node of form.querySelectorAll(".create-only")) node.hidden = false;
  $("webhook-form-title").textContent = "New webhook";
  $("webhook-submit").textContent = "Create webhook";
  $("webhook-cancel").hidden = true;
}

export async function submitWebhook(event) {
  event.preventDefault();
  const form = $("webhook-form");
  const fields = form.elements;
  const body = {
    name: fields.name.value,
    uri: fields.uri.value,
    status: fields.active.checked ? 1 : 0,
  };
  if (fields.secret.value !== "") body.secret = fields.secret.value;
  if (fields.token.value !== "") body.token = fields.token.value;
  const challenge = fields.challenge.checked;
  $("webhook-error").textContent = "";
  $("webhook-result").textContent = "";
  try {
    let saved;
    if (editing === null) {
      // Created with a token, a webhook is verified before the reply (as the provider does);
      // `challenge` says whether, and puts the outcome in the reply.
      body.challenge = challenge;
      if (challenge) $("webhook-result").textContent = "Sending the verification request…";
      const reply = await api("POST", "developer/webhooks", body);
      saved = reply.data;
      $("send-webhook").value = saved.id;
      $("send-result").textContent = `Created ${saved.name}: pick a report and send it.`;
      resetWebhookForm();
      $("webhook-result").textContent = reply.challenge
        ? `${saved.name}: ${challengeText(reply.challenge)}`
        : "";
      return;
    }
    saved = (await api("PUT", `developer/webhooks/${encodeURIComponent(editing)}`, body)).data;
    resetWebhookForm();
    if (challenge) {
      $("webhook-result").textContent = "Sending the verification request…";
      const reply = await api("POST", `sandbox/webhooks/${encodeURIComponent(saved.id)}/challenge`);
      $("webhook-result").textContent = `${saved.name}: ${challengeText(reply.data)}`;
    }
  } catch (error) {
    $("webhook-error").textContent = `Not saved: ${error.message}`;
  }
}
