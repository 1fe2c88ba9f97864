// The webhook list, and the webhook picker of the send form that follows it.
import { api } from "./api.js";
import { $, el } from "./dom.js";
import { bearerText, challengeText, tokenText } from "./webhook-facts.js";
import { editingWebhookId, editWebhook, resetWebhookForm } from "./webhook-form.js";

function webhookKind(webhook) {
  if (!webhook.composed) return "standard";
  return webhook.composed.type === "call" ? "composed, call reports" : "composed, SMS reports";
}

export function showWebhooks(webhooks) {
  // Until the first list arrives it says "Connecting…" (or, with no key, how to add it).
  $("no-webhooks").textContent = "No webhook yet: create one below.";
  $("no-webhooks").hidden = webhooks.length > 0;
  const list = $("webhooks");
  // The list is drawn anew: keep the keyboard where it was (same webhook, same button).
  const focused = document.activeElement;
  const focusedId = list.contains(focused) ? focused.closest(".webhook")?.dataset.id : undefined;
  const focusedAction = focused?.dataset?.action;
  list.replaceChildren(...webhooks.map(webhookItem));
  if (focusedId !== undefined) {
    const again = [...list.children].find((item) => item.dataset.id === focusedId);
    const button = again?.querySelector(`button[data-action="${focusedAction}"]`);
    if (button) button.focus();
    else $("webhook-name").focus();
  }
  const select = $("send-webhook");
  const chosen = select.value;
  select.replaceChildren(
    ...webhooks.map((w) =>
      el("option", { value: w.id }, `${w.name}${w.status === "1" ? "" : " (inactive)"}`),
    ),
  );
  if (webhooks.some((w) => w.id === chosen)) select.value = chosen;
  const editing = editingWebhookId();
  if (editing && !webhooks.some((w) => w.id === editing)) resetWebhookForm();
}

/**
 * What each card's last action said, by webhook id: the list is drawn anew on every change (the
 * challenge's own outcome is one), and the line must survive it.
 */
const cardSaid = new Map();

function say(event, webhook, text) {
  cardSaid.set(webhook.id, text);
  const item = [...$("webhooks").children].find((li) => li.dataset.id === webhook.id);
  const out =
    item?.querySelector(".card-result") ??
    event.currentTarget?.closest?.(".webhook")?.querySelector(".card-result");
  if (out) out.textContent = text;
}

/** Sends a report to the webhook now (the form below sends one with chosen fields). */
async function sendNow(event, webhook, kind) {
  say(event, webhook, "Sending…");
  try {
    const sent = await api("POST", kind === "call" ? "sandbox/calls" : "sandbox/sms", {
      webhook_id: webhook.id,
    });
    say(event, webhook, `${sent.message}: report ${sent.data.report_id}`);
  } catch (error) {
    say(event, webhook, `Not sent: ${error.message}`);
  }
}

async function challengeNow(event, webhook) {
  say(event, webhook, "Sending the verification request…");
  try {
    const reply = await api("POST", `sandbox/webhooks/${encodeURIComponent(webhook.id)}/challenge`);
    say(event, webhook, challengeText(reply.data));
  } catch (error) {
    say(event, webhook, `Not sent: ${error.message}`);
  }
}

function webhookItem(webhook) {
  const active = webhook.status === "1";
  const type = webhook.composed?.type;
  return el(
    "li",
    { className: "webhook", "data-id": webhook.id },
    el(
      "div",
      { className: "webhook-head" },
      el("strong", { className: "name" }, webhook.name),
      el("span", { className: `badge ${active ? "ok" : "muted"}` }, active ? "active" : "inactive"),
      el("span", { className: "badge" }, webhookKind(webhook)),
    ),
    el(
      "code",
      { className: "uri" },
      `${webhook.composed ? `${webhook.composed.method} ` : ""}${webhook.uri}`,
    ),
    el("div", { className: "meta" }, "id ", el("code", {}, webhook.id)),
    el(
      "p",
      { className: "bearer", "data-set": String(Boolean(webhook.bearer?.set)) },
      bearerText(webhook),
    ),
    el(
      "p",
      { className: "token", "data-set": String(Boolean(webhook.token?.set)) },
      tokenText(webhook),
    ),
    webhook.challenge && el("p", { className: "challenge" }, challengeText(webhook.challenge)),
    el(
      "div",
      { className: "actions" },
      type !== "call" &&
        el(
          "button",
          { type: "button", "data-action": "sms", onclick: (e) => sendNow(e, webhook, "sms") },
          "Send SMS",
          el("span", { className: "sr-only" }, ` to ${webhook.name} now`),
        ),
      type !== "delivery" &&
        el(
          "button",
          { type: "button", "data-action": "call", onclick: (e) => sendNow(e, webhook, "call") },
          "Make call",
          el("span", { className: "sr-only" }, ` to ${webhook.name} now`),
        ),
      !webhook.composed &&
        el(
          "button",
          {
            type: "button",
            className: "secondary",
            "data-action": "challenge",
            onclick: (e) => challengeNow(e, webhook),
          },
          "Verify",
          el("span", { className: "sr-only" }, ` to ${webhook.name}`),
        ),
      el(
        "button",
        {
          type: "button",
          className: "secondary",
          "data-action": "edit",
          onclick: () => editWebhook(webhook),
        },
        "Edit",
        el("span", { className: "sr-only" }, ` ${webhook.name}`),
      ),
      deleteButton(webhook),
    ),
    el("p", { className: "card-result", role: "status" }, cardSaid.get(webhook.id) ?? ""),
  );
}

/** Delete asks once more on the same button (no modal dialog), then deletes. */
function deleteButton(webhook) {
  let armed = false;
  let timer;
  const label = el("span", {}, "Delete");
  const button = el(
    "button",
    { type: "button", className: "danger", "data-action": "delete" },
    label,
    el("span", { className: "sr-only" }, ` ${webhook.name}`),
  );
  button.addEventListener("click", async () => {
    if (!armed) {
      armed = true;
      label.textContent = "Confirm delete";
      timer = setTimeout(() => {
        armed = false;
        label.textContent = "Delete";
      }, 5000);
      return;
    }
    clearTimeout(timer);
    try {
      await api("DELETE", `developer/webhooks/${encodeURIComponent(webhook.id)}`);
      $("webhook-name").focus();
    } catch (error) {
      $("webhook-error").textContent = `Could not delete ${webhook.name}: ${error.message}`;
    }
  });
  return button;
}
