// 200: reports taken, in every body format and encoding a sender uses, strict only on
// identity and lenient on every other value.
import {
  SAMPLE_CALL,
  SAMPLE_CALL_TEXT,
  SAMPLE_DLR,
  SAMPLE_DLR_TEXT,
  TOKEN,
} from "../../fixtures/samples.js";
import {
  AUTH,
  BOUNDARY,
  CALL_JSON,
  CALL_REPORT,
  CONCURRENT,
  called,
  chunked,
  DLR_FORM,
  DLR_JSON,
  DLR_MULTIPART,
  DLR_REPORT,
  delivered,
  FORM_REPORT,
  JSON_HEADERS,
  MiB,
  ONE_MIB,
  post,
  URL,
  warning,
  without,
} from "./shared.js";
import type { ConformanceCase } from "./types.js";

/** `levels` arrays, one inside the other, as JSON text. */
const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

/**
 * Values a real sender pushes that are no reason to lose a report: obvious equivalents are
 * read without a word, anything else unreadable is null with a warning, and the report is
 * taken (issue: "units: 2.0", "credits: .25" and "deliv_time: N/A" used to be refused).
 */
const LENIENT: { name: string; patch: object; fields: object }[] = [
  {
    name: 'units "2.0", credits ".25": read as 2 and "0.2500", no warning',
    patch: { units: "2.0", credits: ".25" },
    fields: { units: 2, credits: "0.2500" },
  },
  {
    name: 'deliv_time "0000-00-00 00:00:00" and sent_time "": null, no warning',
    patch: { deliv_time: "0000-00-00 00:00:00", sent_time: "" },
    fields: { deliveredAt: null, sentAt: null },
  },
  {
    name: "credits 1e21: plain digits, never exponent notation",
    patch: { credits: 1e21 },
    fields: { credits: "1000000000000000000000.0000" },
  },
  {
    name: 'units "abc": null with a warning, 200',
    patch: { units: "abc" },
    fields: { units: null, warnings: [warning("units", /whole number, got "abc"/)] },
  },
  {
    name: 'deliv_time "N/A": null with a warning, 200',
    patch: { deliv_time: "N/A" },
    fields: { deliveredAt: null, warnings: [warning("deliv_time", /got "N\/A"/)] },
  },
  {
    name: 'deliv_at "9000000000000000": never an Invalid Date, null with a warning',
    patch: { deliv_at: "9000000000000000", deliv_time: undefined },
    fields: { deliveredAt: null, warnings: [warning("deliv_at", /past any date/)] },
  },
  {
    name: "an object where custom's text belongs: null with a warning, 200",
    patch: { custom: { ref: "order-1234" } },
    fields: { custom: null, warnings: [warning("custom", /an object/)] },
  },
  {
    name: "deliv_at and a deliv_time written in UTC: unix wins, the warning names the implied zone",
    patch: { deliv_at: 1617985671 },
    fields: {
      deliveredAt: "2021-04-09T16:27:51.000Z",
      warnings: [
        warning(
          "deliv_time",
          /5 h 30 min off deliv_at in Asia\/Kolkata: the pair implies UTC\+00:00/,
        ),
      ],
    },
  },
];

/** The text's UTF-8 bytes after a byte order mark (EF BB BF). */
const withBom = (text: string): Uint8Array<ArrayBuffer> =>
  new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]);

export const DELIVERED_CASES: ConformanceCase[] = [
  // ---- 200: delivered ------------------------------------------------------------------
  {
    name: "an SMS delivery report",
    requests: post(DLR_JSON),
    expect: { status: 200, calls: [delivered()] },
  },
  {
    name: "a call report",
    requests: post(CALL_JSON),
    expect: { status: 200, calls: [called] },
  },
  {
    name: "the field-notes DLR sample (trailing comma, no unix fields)",
    requests: post(SAMPLE_DLR_TEXT),
    expect: { status: 200, calls: [delivered()] },
  },
  {
    name: "the field-notes call sample (trailing comma, bare-number phones)",
    requests: post(SAMPLE_CALL_TEXT),
    expect: { status: 200, calls: [called] },
  },
  {
    name: "application/json; charset=UTF-8",
    requests: post(DLR_JSON, { ...AUTH, "content-type": "application/json; charset=UTF-8" }),
    expect: { status: 200, calls: [delivered()] },
  },
  {
    name: "a UTF-8 byte order mark before the JSON (as Windows senders write it)",
    requests: post(withBom(DLR_JSON)),
    expect: { status: 200, calls: [delivered()] },
  },
  {
    name: "a byte order mark before the JSON, read into a string by express.text({ type: '*/*' })",
    expressParsers: ["text-any"],
    requests: post(withBom(DLR_JSON)),
    expect: { status: 200, calls: [delivered()] },
  },
  {
    name: "a byte order mark before a urlencoded form",
    requests: post(withBom(DLR_FORM), {
      ...AUTH,
      "content-type": "application/x-www-form-urlencoded",
    }),
    expect: { status: 200, calls: [delivered(FORM_REPORT)] },
  },
  {
    name: "no Content-Type at all",
    requests: post(DLR_JSON, AUTH),
    expect: { status: 200, calls: [delivered()] },
  },
  {
    name: "header names and the scheme in other cases",
    requests: post(DLR_JSON, {
      AUTHORIZATION: `bearer ${TOKEN}`,
      "Content-TYPE": "Application/JSON",
    }),
    expect: { status: 200, calls: [delivered()] },
  },
  {
    name: "JSON sent as text/plain",
    requests: post(DLR_JSON, { ...AUTH, "content-type": "text/plain" }),
    expect: { status: 200, calls: [delivered()] },
  },
  {
    name: "JSON under curl's default application/x-www-form-urlencoded",
    requests: post(DLR_JSON, { ...AUTH, "content-type": "application/x-www-form-urlencoded" }),
    expect: { status: 200, calls: [delivered()] },
  },
  {
    name: "an urlencoded form",
    requests: post(DLR_FORM, { ...AUTH, "content-type": "application/x-www-form-urlencoded" }),
    expect: { status: 200, calls: [delivered(FORM_REPORT)] },
  },
  {
    name: "a multipart/form-data form",
    requests: post(DLR_MULTIPART, {
      ...AUTH,
      "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
    }),
    expect: { status: 200, calls: [delivered(FORM_REPORT)] },
  },
  {
    name: "a report in chunks, without Content-Length",
    requests: post({ chunks: chunked(DLR_JSON, 64) }),
    expect: { status: 200, calls: [delivered()] },
  },
  {
    name: "a 1 MiB report under maxBodyBytes of 2 MiB",
    setup: { maxBodyBytes: 2 * MiB },
    requests: post(ONE_MIB.body),
    expect: { status: 200, calls: [delivered(ONE_MIB.report)] },
  },
  {
    name: "100 concurrent reports: none lost, none delivered twice",
    requests: CONCURRENT.map(({ body }) => ({
      method: "POST",
      url: URL,
      headers: JSON_HEADERS,
      body,
    })),
    expect: { status: 200, calls: CONCURRENT.map(({ report }) => delivered(report)) },
  },

  // ---- 200: strict only on identity, lenient on every other value ------------------------
  ...LENIENT.map(
    ({ name, patch, fields }): ConformanceCase => ({
      name,
      requests: post(JSON.stringify({ ...SAMPLE_DLR, ...patch })),
      expect: {
        status: 200,
        calls: [delivered({ ...DLR_REPORT, ...fields, raw: { ...SAMPLE_DLR, ...patch } })],
      },
    }),
  ),
  {
    name: 'a call report with duration "23.0" and an unreadable start_at: 200 with a warning',
    requests: post(JSON.stringify({ ...SAMPLE_CALL, duration: "23.0", start_at: "N/A" })),
    expect: {
      status: 200,
      calls: [
        {
          handler: "onCall",
          report: {
            ...CALL_REPORT,
            startedAt: null,
            warnings: [warning("start_at", /got "N\/A"/)],
            raw: { ...SAMPLE_CALL, duration: "23.0", start_at: "N/A" },
          },
        },
      ],
    },
  },
  {
    // 32,000 nested arrays fit in 64 KB: JSON.parse reads them, JSON.stringify(report) (the
    // handler here logs the report as JSON) ran out of stack. A field nested deeper than 64
    // levels is dropped from raw with a warning; one of 64 levels is kept.
    name: "a DLR with a field nested 32,000 deep: 200, the field dropped from raw with a warning",
    requests: post(
      `{${JSON.stringify(SAMPLE_DLR).slice(1, -1)}, "kept": ${nested(64)}, "deep": ${"[".repeat(32_000)}${"]".repeat(32_000)}}`,
    ),
    expect: {
      status: 200,
      calls: [
        delivered({
          ...DLR_REPORT,
          warnings: [warning("deep", /^nested deeper than 64 levels; dropped from raw/)],
          raw: { ...SAMPLE_DLR, kept: JSON.parse(nested(64)) },
        }),
      ],
    },
  },
  {
    name: "a DLR without mobile: 200, mobile null",
    requests: post(JSON.stringify(without(SAMPLE_DLR as Record<string, string>, "mobile"))),
    expect: {
      status: 200,
      calls: [
        delivered({
          ...DLR_REPORT,
          mobile: null,
          raw: without(SAMPLE_DLR as Record<string, string>, "mobile"),
        }),
      ],
    },
  },
];
