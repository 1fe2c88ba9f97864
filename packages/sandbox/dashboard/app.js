// The sandbox dashboard: plain browser JavaScript, no build step, no dependencies.
// Everything shown is set with textContent (never innerHTML), so no value from a webhook, a
// report or a receiver's reply can inject markup.

const KEY_HEADER = "x-reportkit-dashboard-key";
const MAX_ROWS = 500;

/** The dashboard key: from the printed URL's #key=, kept for this tab, then out of the URL. */
function readKey() {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get("key");
  if (fromHash) {
    sessionStorage.setItem("reportkit-dashboard-key", fromHash);
    history.replaceState(null, "", location.pathname + location.search);
    return fromHash;
  }
  return sessionStorage.getItem("reportkit-dashboard-key");
}

const key = readKey();
const state = { webhooks: [], editing: null };
/** The latest row of each report, so "Retry now" shows only on the attempt still waiting. */
const latestRow = new Map();

const $ = (id) => document.getElementById(id);

/** An element with attributes and children (strings become text nodes). */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "className") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

async function api(method, path, body) {
  const response = await fetch(`api/${path}`, {
    method,
    headers: {
      [KEY_HEADER]: key ?? "",
      accept: "application/json",
      // Issue 29 (lead: keep when porting to the modules): the sandbox takes a request that
      // changes something only as application/json, body or not (a cross-site form cannot
      // send that type), so every non-GET request declares it and sends at least "{}".
      ...(method === "GET" ? {} : { "content-type": "application/json" }),
    },
    body: method === "GET" ? undefined : JSON.stringify(body ?? {}),
  });
  let json = null;
  try {
    json = await response.json();
  } catch {
    // Not JSON: the status says enough.
  }
  if (!response.ok) {
    const fields = json?.errors ? Object.values(json.errors).flat() : [];
    const message = fields.length > 0 ? fields.join(" ") : (json?.message ?? "");
    throw new Error(`${response.status}: ${message || response.statusText}`);
  }
  return json;
}

// ---- connection ----

function setConnection(stateName, text) {
  const node = $("connection");
  node.dataset.state = stateName;
  node.textContent = text;
}

function connect() {
  if (!key) {
    setConnection(
      "error",
      "No dashboard key: open the dashboard URL the sandbox printed (it ends in #key=…).",
    );
    return;
  }
  const events = new EventSource(`api/sandbox/events?key=${encodeURIComponent(key)}`);
  events.addEventListener("open", () => setConnection("live", "Live"));
  events.addEventListener("error", () => {
    // CLOSED: the sandbox refused the stream (a restarted sandbox has a new key), no retry.
    if (events.readyState === EventSource.CLOSED) {
      setConnection(
        "error",
        "Disconnected: the sandbox stopped or restarted. Open the dashboard URL it printed.",
      );
    } else {
      setConnection("error", "Disconnected from the sandbox: reconnecting…");
    }
  });
  events.addEventListener("snapshot", (event) => {
    const snapshot = JSON.parse(event.data);
    $("base-url").textContent = snapshot.base_url;
    showWebhooks(snapshot.webhooks);
    $("attempts").replaceChildren();
    latestRow.clear();
    for (const attempt of snapshot.attempts) addAttempt(attempt);
    setConnection("live", "Live");
  });
  events.addEventListener("webhooks", (event) => showWebhooks(JSON.parse(event.data)));
  events.addEventListener("attempt", (event) => addAttempt(JSON.parse(event.data)));
}

// ---- webhooks ----

function webhookKind(webhook) {
  if (!webhook.composed) return "standard";
  return webhook.composed.type === "call" ? "composed, call reports" : "composed, SMS reports";
}

function showWebhooks(webhooks) {
  state.webhooks = webhooks;
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
  if (state.editing && !webhooks.some((w) => w.id === state.editing)) resetWebhookForm();
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
      "div",
      { className: "actions" },
      type !== "call" &&
        el(
          "button",
          { type: "button", "data-action": "sms", onclick: () => prepareSend(webhook.id, "sms") },
          "Send SMS",
          el("span", { className: "sr-only" }, ` to ${webhook.name}`),
        ),
      type !== "delivery" &&
        el(
          "button",
          {
            type: "button",
            "data-action": "call",
            onclick: () => prepareSend(webhook.id, "call"),
          },
          "Make call",
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

function editWebhook(webhook) {
  const form = $("webhook-form");
  state.editing = webhook.id;
  form.elements.name.value = webhook.name;
  form.elements.uri.value = webhook.uri;
  form.elements.secret.value = "";
  form.elements.secret.placeholder = webhook.secret ? "unchanged unless typed" : "";
  form.elements.active.checked = webhook.status === "1";
  for (const node of form.querySelectorAll(".create-only")) node.hidden = true;
  $("webhook-form-title").textContent = `Edit webhook ${webhook.name}`;
  $("webhook-submit").textContent = "Save changes";
  $("webhook-cancel").hidden = false;
  $("webhook-error").textContent = "";
  form.elements.name.focus();
}

function resetWebhookForm() {
  const form = $("webhook-form");
  state.editing = null;
  form.reset();
  form.elements.secret.placeholder = "";
  for (const node of form.querySelectorAll(".create-only")) node.hidden = false;
  $("webhook-form-title").textContent = "New webhook";
  $("webhook-submit").textContent = "Create webhook";
  $("webhook-cancel").hidden = true;
}

async function submitWebhook(event) {
  event.preventDefault();
  const form = $("webhook-form");
  const fields = form.elements;
  const body = {
    name: fields.name.value,
    uri: fields.uri.value,
    status: fields.active.checked ? 1 : 0,
  };
  if (fields.secret.value !== "") body.secret = fields.secret.value;
  if (state.editing === null && fields.token.value !== "") body.token = fields.token.value;
  $("webhook-error").textContent = "";
  try {
    if (state.editing === null) {
      const created = await api("POST", "developer/webhooks", body);
      resetWebhookForm();
      $("send-webhook").value = created.data.id;
      $("send-result").textContent = `Created ${created.data.name}: pick a report and send it.`;
    } else {
      await api("PUT", `developer/webhooks/${encodeURIComponent(state.editing)}`, body);
      resetWebhookForm();
    }
  } catch (error) {
    $("webhook-error").textContent = `Not saved: ${error.message}`;
  }
}

// ---- sending ----

function currentKind() {
  return $("kind-call").checked ? "call" : "sms";
}

function showKind() {
  const kind = currentKind();
  const status = $("send-status");
  status.setAttribute("list", kind === "call" ? "call-statuses" : "sms-statuses");
  status.placeholder = kind === "call" ? "ANSWER" : "DELIVRD";
  document.querySelector("#send-form .sms-only").hidden = kind === "call";
  document.querySelector("#send-form .call-only").hidden = kind !== "call";
  $("send-submit").textContent = kind === "call" ? "Make call" : "Send SMS";
}

function prepareSend(webhookId, kind) {
  $("send-webhook").value = webhookId;
  $(kind === "call" ? "kind-call" : "kind-sms").checked = true;
  showKind();
  $("send-status").focus();
}

async function submitSend(event) {
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

// ---- push attempts ----

function clock(iso) {
  const date = new Date(iso);
  return date.toLocaleTimeString([], { hour12: false });
}

function outcomeText(attempt) {
  if (attempt.outcome === "retrying") return "retrying";
  return attempt.outcome;
}

function resultText(attempt) {
  if (attempt.status_code !== null) return `HTTP ${attempt.status_code}`;
  return attempt.error ?? "no answer";
}

function headerLines(headers) {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join("\n");
}

function prettyBody(text) {
  if (text === null || text === "") return "(empty)";
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function addAttempt(attempt) {
  $("no-attempts").hidden = true;
  const list = $("attempts");
  const previous = latestRow.get(attempt.report_id);
  previous?.querySelector(".retry-now")?.remove();
  const row = attemptRow(attempt);
  latestRow.set(attempt.report_id, row);
  list.prepend(row);
  while (list.children.length > MAX_ROWS) {
    const last = list.lastElementChild;
    if (latestRow.get(last.dataset.report) === last) latestRow.delete(last.dataset.report);
    last.remove();
  }
}

function attemptRow(attempt) {
  const type = attempt.report_type === "call" ? "Call report" : "SMS delivery report";
  const tries =
    attempt.attempt === 0 ? "not sent" : `attempt ${attempt.attempt}/${attempt.max_attempts}`;
  const request = attempt.request;
  const actions = el(
    "div",
    { className: "actions" },
    el(
      "button",
      { type: "button", className: "secondary", onclick: (e) => act(e, "resend", attempt) },
      "Resend",
      el("span", { className: "sr-only" }, ` report ${attempt.report_id}`),
    ),
    attempt.outcome === "retrying" &&
      el(
        "button",
        { type: "button", className: "retry-now", onclick: (e) => act(e, "retry-now", attempt) },
        "Retry now",
        el("span", { className: "sr-only" }, ` report ${attempt.report_id}`),
      ),
  );
  return el(
    "li",
    {
      className: "attempt",
      "data-outcome": attempt.outcome,
      "data-report": attempt.report_id,
      "data-webhook": attempt.webhook_id ?? "",
    },
    el(
      "div",
      { className: "attempt-head" },
      el("span", { className: `badge outcome ${attempt.outcome}` }, outcomeText(attempt)),
      el("span", { className: "type" }, type),
      el("span", { className: "tries" }, tries),
      el("span", { className: "result" }, resultText(attempt)),
      el("span", { className: "latency" }, `${attempt.duration_ms} ms`),
      el("time", { datetime: attempt.at, className: "when" }, clock(attempt.at)),
    ),
    el("code", { className: "target" }, `${attempt.method} ${attempt.url}`),
    el(
      "div",
      { className: "meta" },
      "report ",
      el("code", {}, attempt.report_id),
      attempt.next_attempt_at &&
        el(
          "span",
          { className: "next" },
          " · next retry at ",
          el("time", { datetime: attempt.next_attempt_at }, clock(attempt.next_attempt_at)),
        ),
      attempt.outcome === "skipped" && attempt.error && el("span", {}, ` · ${attempt.error}`),
    ),
    el(
      "details",
      {},
      el("summary", {}, "Request and reply"),
      el("h4", {}, "Request"),
      el("pre", {}, `${request.method} ${request.url}\n${headerLines(request.headers)}`),
      el("h4", {}, "Request body"),
      el("pre", {}, prettyBody(request.body)),
      el("h4", {}, "Receiver's reply body"),
      el("pre", { className: "reply" }, prettyBody(attempt.response_body)),
    ),
    actions,
    el("p", { className: "action-result", role: "status" }),
  );
}

async function act(event, action, attempt) {
  const row = event.currentTarget.closest("li");
  const out = row.querySelector(".action-result");
  try {
    const reply = await api(
      "POST",
      `sandbox/reports/${encodeURIComponent(attempt.report_id)}/${action}`,
    );
    out.textContent = reply.message;
  } catch (error) {
    out.textContent = error.message;
  }
}

// ---- start ----

$("webhook-form").addEventListener("submit", submitWebhook);
$("webhook-cancel").addEventListener("click", resetWebhookForm);
$("send-form").addEventListener("submit", submitSend);
$("kind-sms").addEventListener("change", showKind);
$("kind-call").addEventListener("change", showKind);
showKind();
connect();
