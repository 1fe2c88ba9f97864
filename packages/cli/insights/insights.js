// reportkit insights' page: plain browser JavaScript as ES modules, no build step. It reads the
// insights of the range and filters in its form (GET api/insights, with the per-run key from the
// printed URL's #key=), and draws each section (insights-charts.js) with Chart.js (the global
// the CLI serves, chart.umd.min.js) over a table of the same numbers. Text is set with
// textContent only (dom.js, the sandbox dashboard's helpers), never as markup.
import { $, el } from "./dom.js";
import { percent, SECTIONS } from "./insights-charts.js";

const KEY_HEADER = "x-reportkit-insights-key";
const FILTERS = { provider: "provider", region: "region" };

/** The key: from the printed URL's #key=, kept for this tab, then out of the address bar. */
function readKey() {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get("key");
  if (fromHash) {
    sessionStorage.setItem("reportkit-insights-key", fromHash);
    history.replaceState(null, "", location.pathname + location.search);
    return fromHash;
  }
  return sessionStorage.getItem("reportkit-insights-key");
}
const key = readKey();

// No animation: a chart is drawn once per answer, and a screenshot shows it whole.
Chart.defaults.animation = false;
Chart.defaults.maintainAspectRatio = false;

const charts = new Map();
let tagField = "custom1";

function status(text, state) {
  const node = $("status");
  node.textContent = text;
  node.dataset.state = state;
}

/** One panel per section: its title, its chart's canvas, its table. */
function buildSections() {
  for (const section of SECTIONS) {
    const canvas = el("canvas", { role: "img", "aria-label": section.title });
    $("sections").append(
      el(
        "section",
        { className: "panel", id: section.id, "aria-labelledby": `${section.id}-title` },
        el("h2", { id: `${section.id}-title` }, section.title),
        el("div", { className: "chart" }, canvas),
        el("div", { className: "table" }),
      ),
    );
    charts.set(section.id, { canvas, chart: null });
  }
}

function table(caption, { headers, rows }) {
  if (rows.length === 0) return el("p", { className: "empty" }, "Nothing in this range.");
  return el(
    "table",
    {},
    el("caption", {}, caption),
    el("thead", {}, el("tr", {}, ...headers.map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, ...rows.map((cells) => el("tr", {}, ...cells.map((c) => el("td", {}, c))))),
  );
}

function render(data) {
  tagField = data.tagField;
  $("tag-label").textContent = `Campaign (${tagField})`;
  const q = data.query;
  const filters = ["provider", "region", "custom", "custom1", "custom2"]
    .filter((name) => q[name] !== undefined)
    .map((name) => `${name} ${q[name]}`);
  $("range").textContent =
    `${q.from} to ${q.to}, days in ${q.timeZone}${filters.length ? `; only ${filters.join(", ")}` : ""}`;
  const s = data.summary;
  $("summary").replaceChildren(
    ...[
      ["Messages", String(s.messages)],
      ["Delivered", String(s.delivered)],
      ["Delivery rate", percent(s.deliveryRate)],
      ["Undelivered", String(s.undelivered)],
      ["Pending", String(s.pending)],
      ["Credits", s.credits],
      ["Per delivered", s.creditsPerDelivered ?? "–"],
    ].map(([term, value]) => el("div", {}, el("dt", {}, term), el("dd", {}, value))),
  );
  for (const section of SECTIONS) {
    const shown = charts.get(section.id);
    shown.chart?.destroy();
    shown.chart = new Chart(shown.canvas, section.chart(data));
    $(section.id)
      .querySelector(".table")
      .replaceChildren(
        table(`${section.title}: the numbers of the chart above`, section.table(data)),
      );
  }
  fillChoices("providers", data.deliveryRateByProvider);
  fillChoices("regions", data.deliveryRateByRegion);
  fillChoices("tags", data.deliveryRateByTag);
}

/** Adds the values an answer names to a datalist (kept across filtered answers). */
function fillChoices(id, rows) {
  const list = $(id);
  const known = new Set([...list.options].map((o) => o.value));
  for (const row of rows) {
    if (row.name !== null && !known.has(row.name)) list.append(el("option", { value: row.name }));
  }
}

/** The form as the API's query string; the address bar keeps it, for a reload or a link. */
function params() {
  const form = new FormData($("query"));
  const search = new URLSearchParams();
  search.set("from", String(form.get("from") ?? ""));
  search.set("to", String(form.get("to") ?? ""));
  for (const [field, name] of Object.entries(FILTERS)) {
    const value = String(form.get(field) ?? "").trim();
    if (value) search.set(name, value);
  }
  const tag = String(form.get("tag") ?? "").trim();
  if (tag) search.set(tagField, tag);
  return search;
}

function fillForm(query) {
  $("from").value = query.from;
  $("to").value = query.to;
  $("provider").value = query.provider ?? "";
  $("region").value = query.region ?? "";
  $("tag").value = query[tagField] ?? "";
}

async function load(search) {
  status("Loading…", "loading");
  try {
    const response = await fetch(`api/insights${search ? `?${search}` : ""}`, {
      headers: { [KEY_HEADER]: key ?? "", accept: "application/json" },
    });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(`${response.status}: ${body.error ?? response.statusText}`);
    render(body);
    fillForm(body.query);
    status(`Updated ${new Date().toLocaleTimeString()}`, "ready");
  } catch (error) {
    status(`Could not read the insights: ${error.message}`, "error");
  }
}

$("query").addEventListener("submit", (event) => {
  event.preventDefault();
  const search = params();
  history.replaceState(null, "", `?${search}`);
  void load(search);
});
$("clear").addEventListener("click", () => {
  for (const id of ["provider", "region", "tag"]) $(id).value = "";
  $("query").requestSubmit();
});

buildSections();
void load(location.search.length > 1 ? new URLSearchParams(location.search) : undefined);
