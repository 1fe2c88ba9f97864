// The push log: one row per attempt, newest first, with the request, the reply and actions.
import { api } from "./api.js";
import { $, el } from "./dom.js";

const MAX_ROWS = 500;
/** The latest row of each report, so "Retry now" shows only on the attempt still waiting. */
const latestRow = new Map();

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

/** Empties the log (a new snapshot redraws it). */
export function clearAttempts() {
  $("attempts").replaceChildren();
  latestRow.clear();
}

export function addAttempt(attempt) {
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

/** Resend or Retry now on a row; the API's answer shows under the row's buttons. */
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
