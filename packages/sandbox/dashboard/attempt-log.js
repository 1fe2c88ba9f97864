// The push log: one timeline per report (the report most recently attempted first, its attempts
// oldest first), each attempt with its request, the reply and actions.
import { api } from "./api.js";
import { $, el } from "./dom.js";
import { showPullStatus } from "./pull-status.js";

const MAX_REPORTS = 200;
/** Each report's timeline group, by report id. */
const groups = new Map();

function clock(iso) {
  const date = new Date(iso);
  return date.toLocaleTimeString([], { hour12: false });
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

/**
 * Why the receiver refused, in one line, for a 4xx/5xx: the message of a JSON error reply
 * (reportkit's `{ error: { message } }`, or a `message` / `error` string), else the reply's
 * first line. Shown on the card, without opening it.
 */
export function refusalReason(attempt) {
  if (attempt.status_code === null || attempt.status_code < 400) return null;
  const body = (attempt.response_body ?? "").trim();
  if (body === "") return null;
  let reason = body.split("\n")[0];
  try {
    const json = JSON.parse(body);
    const candidate = json?.error?.message ?? json?.message ?? json?.error;
    if (typeof candidate === "string" && candidate !== "") reason = candidate;
  } catch {
    // Not JSON: its first line.
  }
  return reason.length > 200 ? `${reason.slice(0, 199)}…` : reason;
}

/** Empties the log (a new snapshot redraws it). */
export function clearAttempts() {
  $("attempts").replaceChildren();
  groups.clear();
}

export function addAttempt(attempt) {
  $("no-attempts").hidden = true;
  const list = $("attempts");
  let group = groups.get(attempt.report_id);
  if (group === undefined) {
    group = reportGroup(attempt);
    groups.set(attempt.report_id, group);
    void showPullStatus(group, attempt);
  }
  const timeline = group.querySelector(".timeline");
  // A later attempt settles the earlier ones: an attempt that was waiting for its retry is
  // now just a failed one (no "next retry at", no "Retry now", no stale "Retrying now").
  for (const card of timeline.querySelectorAll('.attempt[data-outcome="retrying"]')) {
    supersede(card);
  }
  timeline.append(attemptCard(attempt));
  showState(group, attempt);
  list.prepend(group);
  while (list.children.length > MAX_REPORTS) {
    const last = list.lastElementChild;
    groups.delete(last.dataset.reportId);
    last.remove();
  }
}

function supersede(card) {
  card.dataset.outcome = "retried";
  const badge = card.querySelector(".outcome");
  badge.className = "badge outcome retried";
  badge.textContent = "failed";
  card.querySelector(".next")?.remove();
  card.querySelector(".retry-now")?.remove();
  const said = card.querySelector(".action-result");
  if (said !== null) said.textContent = "";
}

const REPORT_TYPES = {
  delivery: "SMS delivery report",
  call: "Call report",
  unsubscribe: "Opt-out",
};

function reportGroup(attempt) {
  const type = REPORT_TYPES[attempt.report_type] ?? "SMS delivery report";
  return el(
    "li",
    { className: "report", "data-report-id": attempt.report_id },
    el(
      "div",
      { className: "report-head" },
      el("strong", {}, type),
      el("code", { className: "report-id" }, attempt.report_id),
      el("span", { className: "badge state" }),
      el("span", { className: "pull-status", role: "status" }),
    ),
    el("ol", { className: "timeline" }),
  );
}

/** The report's state, from its latest attempt. */
function showState(group, attempt) {
  const badge = group.querySelector(".state");
  const text =
    attempt.outcome === "retrying"
      ? `retrying (${attempt.attempt}/${attempt.max_attempts} failed)`
      : attempt.outcome;
  badge.className = `badge state ${attempt.outcome}`;
  badge.textContent = text;
  group.dataset.state = attempt.outcome;
}

function attemptCard(attempt) {
  const tries =
    attempt.attempt === 0 ? "not sent" : `attempt ${attempt.attempt}/${attempt.max_attempts}`;
  const request = attempt.request;
  const reason = refusalReason(attempt);
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
      el("span", { className: `badge outcome ${attempt.outcome}` }, attempt.outcome),
      el("span", { className: "tries" }, tries),
      el("span", { className: "result" }, resultText(attempt)),
      el("span", { className: "latency" }, `${attempt.duration_ms} ms`),
      el("time", { datetime: attempt.at, className: "when" }, clock(attempt.at)),
    ),
    el("code", { className: "target" }, `${attempt.method} ${attempt.url}`),
    reason !== null && el("p", { className: "reason" }, `Receiver said: ${reason}`),
    el(
      "div",
      { className: "meta" },
      attempt.next_attempt_at &&
        el(
          "span",
          { className: "next" },
          "next retry at ",
          el("time", { datetime: attempt.next_attempt_at }, clock(attempt.next_attempt_at)),
        ),
      attempt.outcome === "skipped" && attempt.error && el("span", {}, attempt.error),
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

/** Resend or Retry now on a card; the API's answer shows under the card's buttons. */
async function act(event, action, attempt) {
  const card = event.currentTarget.closest("li");
  const out = card.querySelector(".action-result");
  try {
    const reply = await api(
      "POST",
      `sandbox/reports/${encodeURIComponent(attempt.report_id)}/${action}`,
    );
    // The card may have been settled by a newer attempt meanwhile: then there is nothing to say.
    if (card.dataset.outcome !== "retried") out.textContent = reply.message;
  } catch (error) {
    out.textContent = error.message;
  }
}
