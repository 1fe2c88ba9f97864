// What the page shows, one section a chart and the table under it: each section's title, the
// Chart.js configuration it draws from the insights (GET api/insights, @reportkit/postgres's
// readInsights), and its table's columns and rows. Plain data in, plain data out.

const COLORS = {
  delivered: "#1a7f37",
  undelivered: "#cf222e",
  pending: "#8c959f",
  unknown: "#bf8700",
  accent: "#0b57d0",
  second: "#8250df",
  third: "#e16f24",
};

/** 0.9312 → "93.1%"; null → "–". */
export const percent = (rate) => (rate === null ? "–" : `${(rate * 100).toFixed(1)}%`);
const number = (value) => (value === null || value === undefined ? "–" : String(value));
const named = (value) => value ?? "(none)";
/** "Jio (RJ)": a name with its code, when the reports carry one. */
const withCode = (row) => (row.code ? `${named(row.name)} (${row.code})` : named(row.name));
const ratePoints = (rows) =>
  rows.map((r) => (r.deliveryRate === null ? null : r.deliveryRate * 100));

const percentAxis = { min: 0, max: 100, ticks: { callback: (v) => `${v}%` } };

/** A second value axis on the right (its id must start with "y": Chart.js reads the axis from it). */
const rightAxis = { position: "right", min: 0, grid: { drawOnChartArea: false } };

function bar(labels, datasets, { stacked = false, horizontal = false, y, scales } = {}) {
  return {
    type: "bar",
    data: { labels, datasets },
    options: {
      indexAxis: horizontal ? "y" : "x",
      scales: { x: { stacked }, y: { stacked, ...y }, ...scales },
    },
  };
}

function outcomeDatasets(rows) {
  return ["delivered", "undelivered", "unknown", "pending"].map((outcome) => ({
    label: outcome,
    data: rows.map((r) => r[outcome]),
    backgroundColor: COLORS[outcome],
    stack: "messages",
  }));
}

const OUTCOME_COLUMNS = ["messages", "delivered", "undelivered", "pending", "unknown", "rate"];
const outcomeCells = (r) => [
  number(r.messages),
  number(r.delivered),
  number(r.undelivered),
  number(r.pending),
  number(r.unknown),
  percent(r.deliveryRate),
];

function rateSection(id, title, label, pick) {
  return {
    id,
    title,
    chart: (data) => {
      const rows = pick(data);
      return bar(
        rows.map((r) => named(r.name)),
        [{ label: "delivery rate", data: ratePoints(rows), backgroundColor: COLORS.accent }],
        { y: percentAxis },
      );
    },
    table: (data) => ({
      headers: [label, ...OUTCOME_COLUMNS],
      rows: pick(data).map((r) => [withCode(r), ...outcomeCells(r)]),
    }),
  };
}

function latencyDatasets(rows) {
  return [
    ["p50", COLORS.accent],
    ["p90", COLORS.second],
    ["p99", COLORS.third],
  ].map(([p, color]) => ({
    label: `${p} (s)`,
    data: rows.map((r) => r[p]),
    backgroundColor: color,
    borderColor: color,
  }));
}

/** The sections, in the page's order. */
export const SECTIONS = [
  {
    id: "messages-by-day",
    title: "Messages by day",
    chart: (data) =>
      bar(
        data.messagesByDay.map((d) => d.day),
        outcomeDatasets(data.messagesByDay),
        { stacked: true },
      ),
    table: (data) => ({
      headers: ["day", ...OUTCOME_COLUMNS],
      rows: data.messagesByDay.map((d) => [d.day, ...outcomeCells(d)]),
    }),
  },
  rateSection(
    "rate-by-operator",
    "Delivery rate by operator",
    "operator",
    (d) => d.deliveryRateByProvider,
  ),
  rateSection("rate-by-circle", "Delivery rate by circle", "circle", (d) => d.deliveryRateByRegion),
  rateSection(
    "rate-by-campaign",
    "Delivery rate by campaign",
    "campaign",
    (d) => d.deliveryRateByTag,
  ),
  {
    id: "failures-by-reason",
    title: "Why messages failed",
    chart: (data) =>
      bar(
        data.failuresByReason.map((f) => f.reason ?? "(not recorded)"),
        [
          {
            label: "failed",
            data: data.failuresByReason.map((f) => f.messages),
            backgroundColor: COLORS.undelivered,
          },
          {
            label: "a resend may deliver",
            data: data.failuresByReason.map((f) => f.transient),
            backgroundColor: COLORS.unknown,
          },
        ],
        { horizontal: true },
      ),
    table: (data) => ({
      headers: ["reason", "messages", "a resend may deliver"],
      rows: data.failuresByReason.map((f) => [
        f.reason ?? "(not recorded)",
        number(f.messages),
        number(f.transient),
      ]),
    }),
  },
  {
    id: "failures-by-status",
    title: "Failures by status",
    chart: (data) =>
      bar(
        data.failuresByStatus.map((f) => named(f.status)),
        [
          {
            label: "failed",
            data: data.failuresByStatus.map((f) => f.messages),
            backgroundColor: COLORS.undelivered,
          },
        ],
        { horizontal: true },
      ),
    table: (data) => ({
      headers: ["status", "reason", "messages", "a resend may deliver"],
      rows: data.failuresByStatus.map((f) => [
        named(f.status),
        f.reason ?? "(not recorded)",
        number(f.messages),
        number(f.transient),
      ]),
    }),
  },
  {
    id: "latency-by-day",
    title: "How long delivery took, by day (seconds)",
    chart: (data) => ({
      type: "line",
      data: {
        labels: data.latencyByDay.map((d) => d.day),
        datasets: latencyDatasets(data.latencyByDay),
      },
      options: { scales: { y: { min: 0 } } },
    }),
    table: (data) => ({
      headers: ["day", "delivered", "p50", "p90", "p99"],
      rows: data.latencyByDay.map((d) => [
        d.day,
        number(d.messages),
        number(d.p50),
        number(d.p90),
        number(d.p99),
      ]),
    }),
  },
  {
    id: "latency-by-operator",
    title: "How long delivery took, by operator (seconds)",
    chart: (data) =>
      bar(
        data.latencyByProvider.map((d) => named(d.name)),
        latencyDatasets(data.latencyByProvider),
      ),
    table: (data) => ({
      headers: ["operator", "delivered", "p50", "p90", "p99"],
      rows: data.latencyByProvider.map((d) => [
        withCode(d),
        number(d.messages),
        number(d.p50),
        number(d.p90),
        number(d.p99),
      ]),
    }),
  },
  {
    id: "credits-by-day",
    title: "Credits by day",
    chart: (data) =>
      bar(
        data.creditsByDay.map((d) => d.day),
        [
          {
            label: "credits",
            data: data.creditsByDay.map((d) => Number(d.credits)),
            backgroundColor: COLORS.accent,
            yAxisID: "y",
          },
          {
            type: "line",
            label: "per delivered message",
            data: data.creditsByDay.map((d) =>
              d.creditsPerDelivered === null ? null : Number(d.creditsPerDelivered),
            ),
            borderColor: COLORS.third,
            backgroundColor: COLORS.third,
            yAxisID: "yPerDelivered",
            pointRadius: 4,
            // Chart.js draws the first dataset on top; a line over bars goes first.
            order: -1,
          },
        ],
        { y: { min: 0 }, scales: { yPerDelivered: rightAxis } },
      ),
    table: (data) => ({
      headers: ["day", "messages", "delivered", "parts", "credits", "per delivered"],
      rows: data.creditsByDay.map((d) => [
        d.day,
        number(d.messages),
        number(d.delivered),
        number(d.units),
        d.credits,
        d.creditsPerDelivered ?? "–",
      ]),
    }),
  },
  {
    id: "calls-by-day",
    title: "Calls by day",
    chart: (data) =>
      bar(
        data.callsByDay.map((d) => d.day),
        [
          {
            label: "answered",
            data: data.callsByDay.map((d) => d.answered),
            backgroundColor: COLORS.delivered,
            stack: "calls",
          },
          {
            label: "unanswered",
            data: data.callsByDay.map((d) => d.unanswered),
            backgroundColor: COLORS.undelivered,
            stack: "calls",
          },
          {
            type: "line",
            label: "average answered (s)",
            data: data.callsByDay.map((d) => d.averageDuration),
            borderColor: COLORS.accent,
            backgroundColor: COLORS.accent,
            yAxisID: "ySeconds",
            stack: "seconds",
            pointRadius: 4,
            order: -1,
          },
        ],
        { stacked: true, scales: { ySeconds: rightAxis } },
      ),
    table: (data) => ({
      headers: [
        "day",
        "calls",
        "answered",
        "unanswered",
        "answer rate",
        "seconds answered",
        "average",
        "billed",
      ],
      rows: data.callsByDay.map((d) => [
        d.day,
        number(d.calls),
        number(d.answered),
        number(d.unanswered),
        percent(d.answerRate),
        number(d.duration),
        number(d.averageDuration),
        number(d.billing),
      ]),
    }),
  },
  {
    id: "opt-outs-by-day",
    title: "Opt-outs by day",
    chart: (data) =>
      bar(
        data.optOutsByDay.map((d) => d.day),
        [
          {
            label: "opt-outs",
            data: data.optOutsByDay.map((d) => d.optOuts),
            backgroundColor: COLORS.accent,
          },
          {
            label: "of every sender",
            data: data.optOutsByDay.map((d) => d.allSenders),
            backgroundColor: COLORS.undelivered,
          },
        ],
      ),
    table: (data) => ({
      headers: ["day", "opt-outs", "of every sender"],
      rows: data.optOutsByDay.map((d) => [d.day, number(d.optOuts), number(d.allSenders)]),
    }),
  },
  {
    id: "opt-outs-by-sender",
    title: "Opt-outs by sender id",
    chart: (data) =>
      bar(
        data.optOutsBySender.map((o) => `${named(o.value)} (${named(o.type)})`),
        [
          {
            label: "opt-outs",
            data: data.optOutsBySender.map((o) => o.optOuts),
            backgroundColor: COLORS.accent,
          },
        ],
        { horizontal: true },
      ),
    table: (data) => ({
      headers: ["type", "sender id", "opt-outs"],
      rows: data.optOutsBySender.map((o) => [named(o.type), named(o.value), number(o.optOuts)]),
    }),
  },
];
