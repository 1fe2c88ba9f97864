// The sandbox dashboard's entry: plain browser JavaScript as ES modules, no build step, no
// dependencies. Each module has one job:
//   api.js          the dashboard API, with the per-run key
//   live-feed.js    the server-sent event stream and the connection line
//   webhook-list.js the webhook list (webhook-form.js creates and edits one; webhook-facts.js
//                   says in words which credentials are set and how the verification went)
//   send-form.js    the "send a test report" form (every kind the provider pushes)
//   attempt-log.js  the push attempts (pull-status.js: each report's message as the pull API
//                   lists it)
//   dom.js          element helpers (textContent only, never innerHTML)
// A new module must also be listed in DASHBOARD_FILES (src/dashboard-server.ts) to be served.
import { $ } from "./dom.js";
import { connect } from "./live-feed.js";
import { showKind, submitSend } from "./send-form.js";
import { resetWebhookForm, submitWebhook } from "./webhook-form.js";

$("webhook-form").addEventListener("submit", submitWebhook);
$("webhook-cancel").addEventListener("click", resetWebhookForm);
$("send-form").addEventListener("submit", submitSend);
for (const kind of document.querySelectorAll('#send-form input[name="kind"]')) {
  kind.addEventListener("change", showKind);
}
showKind();
connect();
