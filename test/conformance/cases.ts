// The conformance table: every request here gets the same reply, and the same handler calls,
// from @reportkit/core and from every adapter. Each target file runs it unchanged.
import { createHash } from "node:crypto";
import type { ComposedTemplate, ErrorCode } from "@reportkit/core";
import { expect } from "vitest";
import {
  SAMPLE_CALL,
  SAMPLE_CALL_TEXT,
  SAMPLE_DLR,
  SAMPLE_DLR_TEXT,
  TOKEN,
  VERIFICATION_SAMPLE,
} from "../fixtures/samples.js";
import type { Call, Setup } from "./setup.js";

/** Body parsers an Express app runs before the receiver (other targets have none). */
export type ExpressParser =
  | "json"
  | "urlencoded"
  | "urlencoded-extended"
  | "text"
  | "text-any"
  | "raw-any";

export interface RequestSpec {
  method: string;
  /** Path and query. */
  url: string;
  /** Sent exactly as given: no default headers are added. */
  headers: Record<string, string>;
  /**
   * `fail`: that much is sent, then the body stream fails. `chunks`: sent one by one as a
   * stream, with no Content-Length (chunked on the wire), so only a limit applied while reading
   * can stop it.
   */
  body?: string | Uint8Array<ArrayBuffer> | { fail: string } | { chunks: string[] };
}

/** One reply as a case expects it. */
export interface ExpectedReply {
  status: number;
  code?: ErrorCode;
  /** What the error message must say (say, the key it names). */
  message?: RegExp;
  /** Exact values, or patterns for values whose details may vary. */
  headers?: Record<string, string | RegExp>;
  /** A success reply's body as JSON. Default `{ ok: true }`. */
  body?: object;
}

export interface ConformanceCase {
  name: string;
  setup?: Setup;
  /** Express only: these parsers run first (in this order); the reply must not change. */
  expressParsers?: ExpressParser[];
  /** Sent all at once, unless `expect.sequence` is given. */
  requests: RequestSpec[];
  /**
   * Every reply is this one; or, with `sequence`, the requests are sent one after another,
   * each once the one before was answered (as a provider's retries come), and the i-th reply
   * is `sequence[i]`.
   */
  expect: (ExpectedReply | { sequence: ExpectedReply[] }) & {
    /** Every handler call the requests caused, in any order. */
    calls: Call[];
  };
}

const URL = "/webhooks";
const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_TYPE = { "content-type": "application/json" };
const JSON_HEADERS = { ...AUTH, ...JSON_TYPE };
const CHALLENGE = 'Bearer realm="reportkit"';
const MiB = 1024 * 1024;

const post = (body: RequestSpec["body"], headers: Record<string, string> = JSON_HEADERS) => [
  { method: "POST", url: URL, headers, body },
];

// Wall-clock times are read in the provider's zone, Asia/Kolkata (UTC+05:30), by default.
const DLR_REPORT = {
  type: "delivery",
  id: "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1",
  mobile: "919876543210",
  status: "DELIVRD",
  final: true,
  outcome: "delivered",
  credits: "2.0000",
  units: 1,
  deliveredAt: "2021-04-09T10:57:51.000Z",
  sentAt: "2021-04-09T10:57:48.000Z",
  submittedAt: "2021-04-09T10:57:49.000Z",
  cid: "6789",
  custom: "order-1234",
  // The fields the provider's verification page adds to a DLR, typed.
  custom1: "campaign-3344",
  custom2: "new-campXXX",
  location: "India",
  region: "Bangalore",
  provider: "Jio",
  locationCode: "in",
  regionCode: "KA",
  providerCode: "RJ",
  warnings: [],
  raw: SAMPLE_DLR,
};
/** The verification page's fields as a composed report has them: no variable carries them. */
const NO_EXTRA_FIELDS = {
  custom1: null,
  custom2: null,
  location: null,
  region: null,
  provider: null,
  locationCode: null,
  regionCode: null,
  providerCode: null,
};

const CALL_REPORT = {
  type: "call",
  webhookId: null,
  mid: "5f2b1a9c-3d4e-4f60-8a7b-9c0d1e2f3a4b",
  bridge: "918068281234",
  from: "918068281235",
  to: "919876543210",
  startedAt: "2021-04-09T10:57:51.000Z",
  endedAt: "2021-04-09T10:58:14.000Z",
  duration: 23,
  flowId: 4521,
  status: "ANSWER",
  final: true,
  outcome: "answered",
  source: "OBD",
  recordingUrl: "https://recordings.example.com/5f2b1a9c.mp3",
  warnings: [],
  raw: SAMPLE_CALL,
};

const delivered = (report: object = DLR_REPORT): Call => ({ handler: "onDelivery", report });

/** A warning on `field` whose message matches. */
/** `levels` arrays, one inside the other, as JSON text. */
const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
const warning = (field: string, message: RegExp) => ({
  field,
  message: expect.stringMatching(message),
});

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
const called: Call = { handler: "onCall", report: CALL_REPORT };

const DLR_JSON = JSON.stringify(SAMPLE_DLR);
/** The text's UTF-8 bytes after a byte order mark (EF BB BF). */
const withBom = (text: string): Uint8Array<ArrayBuffer> =>
  new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]);
const ZERO_ARGUMENT: Setup = { form: "zero-argument" };
const ATTACHED_DLR_ID = "0c6f3c1e-7a2b-4d5e-9f10-2a3b4c5d6e7f:1";
const dlrWithId = (id: string) => ({ ...SAMPLE_DLR, id });
const CALL_JSON = JSON.stringify(SAMPLE_CALL);

// A form sends every value as a string; the report is the same, `raw` keeps the strings.
const DLR_FORM_FIELDS = Object.fromEntries(
  Object.entries(SAMPLE_DLR).map(([key, value]) => [key, String(value)]),
);
const DLR_FORM = new URLSearchParams(DLR_FORM_FIELDS).toString();
const FORM_REPORT = { ...DLR_REPORT, raw: DLR_FORM_FIELDS };
const BOUNDARY = "----reportkit-conformance";
const multipart = (fields: Record<string, string>) =>
  `${Object.entries(fields)
    .map(
      ([key, value]) =>
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${key}"\r\n\r\n${value}\r\n`,
    )
    .join("")}--${BOUNDARY}--\r\n`;
const DLR_MULTIPART = multipart(DLR_FORM_FIELDS);

/** A valid DLR of exactly `size` bytes, padded by an extra field (unknown keys pass). */
function dlrOfSize(size: number): { body: string; report: object } {
  const empty = JSON.stringify({ ...SAMPLE_DLR, padding: "" });
  const raw = { ...SAMPLE_DLR, padding: "x".repeat(size - empty.length) };
  return { body: JSON.stringify(raw), report: { ...DLR_REPORT, raw } };
}
const ONE_MIB = dlrOfSize(MiB);

function chunked(text: string, size: number): string[] {
  return Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
    text.slice(i * size, (i + 1) * size),
  );
}

const CONCURRENT = Array.from({ length: 100 }, (_, i) => {
  const raw = { ...SAMPLE_DLR, id: `b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:${i + 1}` };
  return { body: JSON.stringify(raw), report: { ...DLR_REPORT, id: raw.id, raw } };
});

// ---- Deduplication, deadlines, queues, closing -------------------------------------------

/** Deduplication on, with the default store (this process's memory). */
const ONCE: Setup = { dedupe: "memory" };
const DUPLICATE: ExpectedReply = { status: 200, body: { ok: true, duplicate: true } };
const QUEUED: ExpectedReply = { status: 202, body: { ok: true, queued: true } };
/** A "not now" reply: 503 (or 409), and when to try again, in seconds. */
const RETRY_LATER = (code: ErrorCode, status = 503): ExpectedReply => ({
  status,
  code,
  headers: { "retry-after": "30" },
});
/** `defaultDedupeKey` of each sample (README "Deduplication"): the queue's job id. */
const DLR_KEY = `delivery:${SAMPLE_DLR.id}:${SAMPLE_DLR.status}`;
// The callee as the first 16 hex digits of its SHA-256, never the number.
const CALL_KEY = `call:${SAMPLE_CALL.mid}:${createHash("sha256").update(String(SAMPLE_CALL.to)).digest("hex").slice(0, 16)}:${SAMPLE_CALL.status}:${Date.parse(CALL_REPORT.startedAt)}`;
const enqueued = (report: object, key: string): Call => ({ handler: "queue", report, key });

// ---- Composed webhooks: the customer's own template (README "Composed webhooks") ---------

const FORM_TYPE = "application/x-www-form-urlencoded";
const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** A request with any method and URL; Bearer token and JSON type unless told otherwise. */
const send = (
  method: string,
  url: string,
  body?: RequestSpec["body"],
  headers: Record<string, string> = body === undefined ? AUTH : JSON_HEADERS,
): RequestSpec[] => [{ method, url, headers, body }];

/** The values without one key. */
const without = (values: Record<string, string>, key: string): Record<string, string> =>
  Object.fromEntries(Object.entries(values).filter(([k]) => k !== key));

const EMPTY_CALL = {
  type: "call",
  webhookId: null,
  mid: null,
  bridge: null,
  from: null,
  to: null,
  startedAt: null,
  endedAt: null,
  duration: null,
  flowId: null,
  status: null,
  source: null,
  recordingUrl: null,
  warnings: [],
};

// The field-notes call example, as is: the customer's own query keys (call_id,
// message_status), and a JSON body. A call report's {{id}} fills `mid`. Its URL has a path of
// its own (/ack/receive): mounted under /webhooks, the request path ends with it.
const CALL_EXAMPLE_URL =
  "https://www.domain.com/ack/receive?call_id={{id}}&to={{to}}&message_status={{status}}";
const CALL_EXAMPLE_GET: Setup = {
  subpaths: true,
  composed: { type: "call", method: "GET", url: CALL_EXAMPLE_URL },
};
const CALL_EXAMPLE_POST: Setup = {
  subpaths: true,
  composed: {
    type: "call",
    method: "POST",
    url: CALL_EXAMPLE_URL,
    body: { id: "{{id}}", to: "{{to}}", status: "{{status}}", duration: "{{duration}}" },
    format: "json",
  },
};
const CALL_EXAMPLE_PATH = "/webhooks/ack/receive";
const CALL_QUERY = { call_id: CALL_REPORT.mid, to: "919876543210", message_status: "ANSWER" };
const CALL_EXAMPLE_QUERY = `${CALL_EXAMPLE_PATH}?${new URLSearchParams(CALL_QUERY)}`;
const CALL_EXAMPLE_BODY = {
  id: CALL_REPORT.mid,
  to: "919876543210",
  status: "ANSWER",
  duration: "23",
};
const composedCall = (fields: object, raw: object): Call => ({
  handler: "onCall",
  report: { ...EMPTY_CALL, ...fields, raw },
});
const CALL_EXAMPLE_GOT = {
  mid: CALL_REPORT.mid,
  to: "919876543210",
  status: "ANSWER",
  final: true,
  outcome: "answered",
};

// A delivery template with keys of the customer's choosing for every kind of value: text,
// an exact decimal, a number, a wall-clock time and unix times.
const DLR_KEYS = {
  msg_id: "{{id}}",
  phone: "{{mobile}}",
  state: "{{status}}",
  cost: "{{credits}}",
  parts: "{{units}}",
  delivered: "{{deliv_time}}",
  sent: "{{sent_at}}",
  submitted: "{{submit_at}}",
  ref: "{{custom}}",
} as const;
/** What the provider fills the template with: strings, always. */
const DLR_VALUES: Record<keyof typeof DLR_KEYS, string> = {
  msg_id: DLR_REPORT.id,
  phone: "919876543210",
  state: "DELIVRD",
  cost: "2.0000",
  parts: "1",
  delivered: "2021-04-09 16:27:51",
  sent: "1617965868",
  submitted: "1617965869",
  ref: "order-1234",
};
/** The same report as the standard push gives; no variable carries `cid` nor the extra fields. */
const composedDelivery = (values: Record<string, string>, fields: object = {}): Call =>
  delivered({ ...DLR_REPORT, cid: null, ...NO_EXTRA_FIELDS, ...fields, raw: values });

const DLR_QUERY_TEMPLATE = `https://example.com/webhooks?${Object.entries(DLR_KEYS)
  .map(([key, variable]) => `${key}=${variable}`)
  .join("&")}`;
const dlrTemplate = (
  method: "GET" | "POST" | "PUT",
  format?: "json" | "form" | "urlencoded",
): Setup => ({
  composed:
    method === "GET"
      ? { type: "delivery", method, url: DLR_QUERY_TEMPLATE }
      : {
          type: "delivery",
          method,
          url: "https://example.com/webhooks",
          body: DLR_KEYS,
          ...(format === undefined ? {} : { format }),
        },
});
const DLR_GET = dlrTemplate("GET");
const DLR_POST_JSON = dlrTemplate("POST", "json");
const DLR_POST_FORM = dlrTemplate("POST", "form");
const DLR_PUT_JSON = dlrTemplate("PUT"); // format defaults to JSON
const DLR_PUT_FORM = dlrTemplate("PUT", "form");
const DLR_POST_URLENCODED = dlrTemplate("POST", "urlencoded");
const BODY_TEMPLATES = {
  POST: { json: DLR_POST_JSON, form: DLR_POST_FORM },
  PUT: { json: DLR_PUT_JSON, form: DLR_PUT_FORM },
};

/** The values as each body format carries them. */
const asJson = (values: Record<string, string>) => JSON.stringify(values);
const asUrlencoded = (values: Record<string, string>) => new URLSearchParams(values).toString();
const FORM_HEADERS = { ...AUTH, "content-type": FORM_TYPE };
const MULTIPART_HEADERS = { ...AUTH, "content-type": MULTIPART_TYPE };
const DLR_QUERY_URL = `${URL}?${asUrlencoded(DLR_VALUES)}`;

// A query value with literal text around its placeholder, the method in lower case, and
// {{sent_time}} filled with unix digits (the documentation's second meaning of the name).
const DLR_LITERAL_GET: Setup = {
  composed: {
    type: "delivery",
    method: "get",
    url: "https://example.com/webhooks?ref=dlr-{{id}}.x&state={{status}}&sent={{sent_time}}",
  },
};
const LITERAL_QUERY = {
  ref: `dlr-${DLR_REPORT.id}.x`,
  state: "DELIVRD",
  sent: DLR_VALUES.sent,
};

// Path placeholders and a custom auth header (README's PUT example): the whole x-api-key value
// is the token. Matched against the end of the request path, after the /webhooks mount.
const DLR_PATH_PUT: Setup = {
  subpaths: true,
  header: "x-api-key",
  composed: { type: "delivery", method: "PUT", url: "https://example.com/dlr/{{id}}/{{status}}" },
};
const DLR_PATH_URL = `/webhooks/dlr/${encodeURIComponent(DLR_REPORT.id)}/DELIVRD`;
const API_KEY = { "x-api-key": TOKEN };
const PATH_REPORT = {
  ...DLR_REPORT,
  mobile: null,
  credits: null,
  units: null,
  deliveredAt: null,
  sentAt: null,
  submittedAt: null,
  cid: null,
  custom: null,
  ...NO_EXTRA_FIELDS,
  raw: {},
};
// One template with a value in each place: a path segment with text around its placeholder,
// the query, and a JSON body.
const DLR_MIXED: Setup = {
  subpaths: true,
  composed: {
    type: "delivery",
    url: "https://example.com/hooks/dlr-{{id}}.json?state={{status}}",
    body: { phone: "{{mobile}}", ref: "{{custom}}" },
  },
};
const MIXED_BODY = { phone: "919876543210", ref: "order-1234" };
const MIXED_REPORT = {
  ...PATH_REPORT,
  mobile: "919876543210",
  custom: "order-1234",
  raw: { state: "DELIVRD", ...MIXED_BODY },
};

export const CASES: ConformanceCase[] = [
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

  // ---- the webhook's verification (help/verify-webhook.md) --------------------------------
  {
    name: "the provider's verification request byte for byte (trailing comma): 200 JSON with its challenge",
    setup: { verificationToken: VERIFICATION_SAMPLE.queryKey },
    requests: [
      {
        method: "POST",
        url: VERIFICATION_SAMPLE.url,
        headers: {
          authorization: `Bearer ${VERIFICATION_SAMPLE.secret}`,
          "content-type": "application/json",
        },
        body: VERIFICATION_SAMPLE.body,
      },
    ],
    expect: {
      status: 200,
      body: { challenge: VERIFICATION_SAMPLE.challenge },
      headers: { "content-type": "application/json" },
      calls: [],
    },
  },
  {
    name: "the verification request as valid JSON, its key in the body: 200 JSON with its challenge",
    setup: { verificationToken: VERIFICATION_SAMPLE.bodyKey },
    requests: post(
      JSON.stringify({ validation_key: VERIFICATION_SAMPLE.bodyKey, challenge: "valid-json" }),
      JSON_TYPE,
    ),
    expect: {
      status: 200,
      body: { challenge: "valid-json" },
      headers: { "content-type": "application/json" },
      calls: [],
    },
  },
  {
    name: "no verificationToken: the verification request carrying the receiver's secret is answered",
    requests: post(
      JSON.stringify({ validation_key: "any-key", challenge: "by-the-secret" }),
      JSON_HEADERS,
    ),
    expect: { status: 200, body: { challenge: "by-the-secret" }, calls: [] },
  },
  {
    name: "the verification request with a wrong key: 401 with WWW-Authenticate, no challenge echoed",
    setup: { verificationToken: "another-key" },
    requests: [
      {
        method: "POST",
        url: VERIFICATION_SAMPLE.url,
        headers: {
          authorization: `Bearer ${VERIFICATION_SAMPLE.secret}`,
          "content-type": "application/json",
        },
        body: VERIFICATION_SAMPLE.body,
      },
    ],
    expect: {
      status: 401,
      code: "unauthorized",
      message: /validation key/,
      headers: { "www-authenticate": `${CHALLENGE}, error="invalid_token"` },
      calls: [],
    },
  },

  // ---- 401 -------------------------------------------------------------------------------
  {
    name: "no Authorization header",
    requests: post(DLR_JSON, JSON_TYPE),
    expect: {
      status: 401,
      code: "unauthorized",
      headers: { "www-authenticate": CHALLENGE },
      calls: [],
    },
  },
  {
    name: "a Basic Authorization header",
    requests: post(DLR_JSON, { ...JSON_TYPE, authorization: "Basic dXNlcjpwYXNz" }),
    expect: {
      status: 401,
      code: "unauthorized",
      headers: { "www-authenticate": CHALLENGE },
      calls: [],
    },
  },
  {
    name: "a wrong token",
    requests: post(DLR_JSON, { ...JSON_TYPE, authorization: "Bearer not-the-token" }),
    expect: {
      status: 401,
      code: "unauthorized",
      headers: { "www-authenticate": `${CHALLENGE}, error="invalid_token"` },
      calls: [],
    },
  },

  // ---- 400 -------------------------------------------------------------------------------
  {
    name: "a body that is not JSON",
    requests: post("this is not json"),
    expect: { status: 400, code: "invalid_json", calls: [] },
  },
  {
    name: "truncated JSON",
    requests: post('{"id": "x:1", "mobile": '),
    expect: { status: 400, code: "invalid_json", calls: [] },
  },
  {
    // V8's own message quotes the body: an escape sequence and a newline reached replies and
    // split log lines. The message says where, by line, column and code point only (printable
    // ASCII throughout).
    name: "JSON broken by control characters: the message names the position, not the bytes",
    requests: post('{"id": "x\u001b]0;pwned\u0007\nFAKE LOG LINE'),
    expect: {
      status: 400,
      code: "invalid_json",
      message: /^[ -~]*: unexpected U\+001B at line 1, column 10 \(character 10\)\. [ -~]*$/,
      calls: [],
    },
  },
  {
    name: "an empty body",
    requests: post(""),
    expect: { status: 400, code: "invalid_json", calls: [] },
  },
  {
    name: "an empty object",
    requests: post("{}"),
    expect: { status: 400, code: "unrecognized_report", calls: [] },
  },
  {
    name: "an array",
    requests: post(`[${DLR_JSON}]`),
    expect: { status: 400, code: "unrecognized_report", calls: [] },
  },
  {
    name: "a scalar",
    requests: post("42"),
    expect: { status: 400, code: "unrecognized_report", calls: [] },
  },
  {
    name: "a DLR without an id: no identity, 400 naming it",
    requests: post(JSON.stringify(without(SAMPLE_DLR as Record<string, string>, "id"))),
    expect: { status: 400, code: "invalid_report", message: /"id"/, calls: [] },
  },
  {
    name: "a DLR whose status is an object: no identity, 400 naming it",
    requests: post(JSON.stringify({ ...SAMPLE_DLR, status: { stat: "DELIVRD" } })),
    expect: { status: 400, code: "invalid_report", message: /"status"/, calls: [] },
  },
  {
    name: "a call report without mid or webhook_id: no identity, 400 naming them",
    requests: post(JSON.stringify(without(SAMPLE_CALL as Record<string, string>, "mid"))),
    expect: { status: 400, code: "invalid_report", message: /"mid".*"webhook_id"/, calls: [] },
  },
  {
    name: "a multipart body without its boundary",
    requests: post(DLR_MULTIPART, {
      ...AUTH,
      "content-type": "multipart/form-data; boundary=nope",
    }),
    expect: { status: 400, code: "invalid_form", calls: [] },
  },
  {
    name: "a body stream that fails mid-way",
    requests: post({ fail: DLR_JSON.slice(0, 40) }),
    expect: { status: 400, code: "body_read_failed", calls: [] },
  },

  // ---- 405, 413, 415 ---------------------------------------------------------------------
  {
    name: "GET",
    requests: [{ method: "GET", url: URL, headers: AUTH }],
    expect: { status: 405, code: "method_not_allowed", headers: { allow: "POST" }, calls: [] },
  },
  {
    name: "PUT with a report",
    requests: [{ method: "PUT", url: URL, headers: JSON_HEADERS, body: DLR_JSON }],
    expect: { status: 405, code: "method_not_allowed", headers: { allow: "POST" }, calls: [] },
  },
  {
    name: "DELETE",
    requests: [{ method: "DELETE", url: `${URL}?id=1`, headers: AUTH }],
    expect: { status: 405, code: "method_not_allowed", headers: { allow: "POST" }, calls: [] },
  },
  {
    name: "a 70 KiB body under the default 64 KiB limit",
    requests: post(dlrOfSize(70 * 1024).body),
    expect: { status: 413, code: "payload_too_large", calls: [] },
  },
  {
    name: "a 70 KiB body in chunks, without Content-Length, under the default limit",
    requests: post({ chunks: chunked(dlrOfSize(70 * 1024).body, 16 * 1024) }),
    expect: { status: 413, code: "payload_too_large", calls: [] },
  },
  {
    name: "a 1 MiB body under the default limit",
    requests: post(ONE_MIB.body),
    expect: { status: 413, code: "payload_too_large", calls: [] },
  },
  {
    name: "application/xml",
    requests: post("<report/>", { ...AUTH, "content-type": "application/xml" }),
    expect: { status: 415, code: "unsupported_media_type", calls: [] },
  },

  // ---- 500 -------------------------------------------------------------------------------
  {
    name: "a handler that throws",
    setup: { handler: "throws" },
    requests: post(DLR_JSON),
    expect: { status: 500, code: "handler_failed", calls: [delivered()] },
  },
  {
    name: "a handler that rejects",
    setup: { handler: "rejects" },
    requests: post(CALL_JSON),
    expect: { status: 500, code: "handler_failed", calls: [called] },
  },
  {
    name: "a token verifier that throws",
    setup: { tokenCheck: "throws" },
    requests: post(DLR_JSON),
    expect: { status: 500, code: "token_check_failed", calls: [] },
  },
  {
    name: "a dedupeKey that returns an empty string: 500 internal_error, no call",
    setup: { dedupeKey: "not a string", dedupe: "memory" },
    requests: post(DLR_JSON),
    expect: { status: 500, code: "internal_error", calls: [] },
  },

  // ---- Deduplication on (the in-memory store; a store that fails on demand) -------------
  {
    name: "dedupe on: a DLR, then its retry: 200, then 200 duplicate; the handler runs once",
    setup: ONCE,
    requests: [...post(DLR_JSON), ...post(DLR_JSON)],
    expect: { sequence: [{ status: 200 }, DUPLICATE], calls: [delivered()] },
  },
  {
    name: "dedupe on: a call report, then its retry: 200, then 200 duplicate; the handler runs once",
    setup: ONCE,
    requests: [...post(CALL_JSON), ...post(CALL_JSON)],
    expect: { sequence: [{ status: 200 }, DUPLICATE], calls: [called] },
  },
  {
    name: "dedupe on: the retry of a JSON report sent as a form is the same report: duplicate",
    setup: ONCE,
    requests: [...post(DLR_JSON), ...post(DLR_FORM, { ...AUTH, "content-type": FORM_TYPE })],
    expect: { sequence: [{ status: 200 }, DUPLICATE], calls: [delivered()] },
  },
  {
    name: "dedupe on: the same message with a later status is another report: both run",
    setup: ONCE,
    requests: [...post(JSON.stringify({ ...SAMPLE_DLR, status: "ACCEPTD" })), ...post(DLR_JSON)],
    expect: {
      sequence: [{ status: 200 }, { status: 200 }],
      calls: [
        delivered({
          ...DLR_REPORT,
          status: "ACCEPTD",
          final: false,
          outcome: "pending",
          raw: { ...SAMPLE_DLR, status: "ACCEPTD" },
        }),
        delivered(),
      ],
    },
  },
  {
    name: "dedupe on: 100 different reports at once: none lost, none delivered twice",
    setup: ONCE,
    requests: CONCURRENT.map(({ body }) => post(body)[0] as RequestSpec),
    expect: { status: 200, calls: CONCURRENT.map(({ report }) => delivered(report)) },
  },
  {
    name: "dedupe on: a handler that throws is not remembered: its retry runs it again",
    setup: { ...ONCE, handler: "throws" },
    requests: [...post(DLR_JSON), ...post(DLR_JSON)],
    expect: {
      sequence: [
        { status: 500, code: "handler_failed" },
        { status: 500, code: "handler_failed" },
      ],
      calls: [delivered(), delivered()],
    },
  },
  {
    name: "a handler slower than deadlineMs (300 ms): 503 handler_timeout with Retry-After",
    setup: { handler: "hangs", deadlineMs: 300 },
    requests: post(DLR_JSON),
    expect: { ...RETRY_LATER("handler_timeout"), calls: [delivered()] },
  },
  {
    name: "dedupe on: a retry while the first attempt still runs: 409 in_progress with Retry-After",
    setup: { ...ONCE, handler: "hangs", deadlineMs: 300 },
    requests: [...post(DLR_JSON), ...post(DLR_JSON)],
    expect: {
      sequence: [RETRY_LATER("handler_timeout"), RETRY_LATER("in_progress", 409)],
      calls: [delivered()],
    },
  },
  {
    name: "the dedupe store unreachable: 503 dedupe_unavailable with Retry-After, no call",
    setup: { dedupe: { fails: "claim" } },
    requests: [...post(DLR_JSON), ...post(CALL_JSON)],
    expect: { ...RETRY_LATER("dedupe_unavailable"), calls: [] },
  },
  {
    name: "the dedupe store down for the first attempt, back for the retries: 503, 200, duplicate",
    setup: { dedupe: { fails: "claim", times: 1 } },
    requests: [...post(DLR_JSON), ...post(DLR_JSON), ...post(DLR_JSON)],
    expect: {
      sequence: [RETRY_LATER("dedupe_unavailable"), { status: 200 }, DUPLICATE],
      calls: [delivered()],
    },
  },
  {
    name: "the dedupe store fails to mark a report done after the handler succeeded: still 200",
    setup: { dedupe: { fails: "complete" } },
    requests: post(DLR_JSON),
    expect: { status: 200, calls: [delivered()] },
  },

  // ---- Queue mode (a queue in memory; one that fails on demand) --------------------------
  {
    name: "queue mode: a DLR is enqueued under its dedupe key: 202 queued",
    setup: { queue: "memory" },
    requests: post(DLR_JSON),
    expect: { ...QUEUED, calls: [enqueued(DLR_REPORT, DLR_KEY)] },
  },
  {
    name: "queue mode: a call report is enqueued under its dedupe key: 202 queued",
    setup: { queue: "memory" },
    requests: post(CALL_JSON),
    expect: { ...QUEUED, calls: [enqueued(CALL_REPORT, CALL_KEY)] },
  },
  {
    name: "queue mode: a retry of a queued report: 202 again, no second job",
    setup: { queue: "memory" },
    requests: [...post(DLR_JSON), ...post(DLR_JSON)],
    expect: { sequence: [QUEUED, QUEUED], calls: [enqueued(DLR_REPORT, DLR_KEY)] },
  },
  {
    name: "queue mode: the queue unreachable: 503 queue_unavailable with Retry-After",
    setup: { queue: { fails: "rejects" } },
    requests: post(DLR_JSON),
    expect: { ...RETRY_LATER("queue_unavailable"), calls: [] },
  },
  {
    name: "queue mode: the queue does not answer within deadlineMs (300 ms): 503 queue_unavailable",
    setup: { queue: { fails: "hangs" }, deadlineMs: 300 },
    requests: post(DLR_JSON),
    expect: { ...RETRY_LATER("queue_unavailable"), calls: [] },
  },
  {
    name: "queue mode: the queue down for the first attempt, back for the retry: 503, then 202",
    setup: { queue: { fails: "rejects", times: 1 } },
    requests: [...post(DLR_JSON), ...post(DLR_JSON)],
    expect: {
      sequence: [RETRY_LATER("queue_unavailable"), QUEUED],
      calls: [enqueued(DLR_REPORT, DLR_KEY)],
    },
  },
  {
    name: "queue mode: a dedupeKey that returns an empty string: 500 internal_error, no job",
    setup: { queue: "memory", dedupeKey: "not a string" },
    requests: post(DLR_JSON),
    expect: { status: 500, code: "internal_error", calls: [] },
  },

  // ---- A receiver closing (close(): a deploy's SIGTERM) ---------------------------------
  {
    name: "after close(): 503 shutting_down with Retry-After, no call",
    setup: { closed: true },
    requests: [...post(DLR_JSON), ...post(CALL_JSON)],
    expect: { ...RETRY_LATER("shutting_down"), calls: [] },
  },
  {
    name: "after close(), in queue mode: 503 shutting_down, no job",
    setup: { queue: "memory", closed: true },
    requests: post(DLR_JSON),
    expect: { ...RETRY_LATER("shutting_down"), calls: [] },
  },

  // ---- Bodies an Express body parser read first (a plain request everywhere else) ---------
  {
    name: "a DLR, pre-parsed by express.json()",
    expressParsers: ["json"],
    requests: post(DLR_JSON),
    expect: { status: 200, calls: [delivered()] },
  },
  {
    name: "a call report, pre-parsed by express.json() with express.urlencoded() too",
    expressParsers: ["urlencoded", "json"],
    requests: post(CALL_JSON),
    expect: { status: 200, calls: [called] },
  },
  {
    name: "a form, pre-parsed by express.urlencoded()",
    expressParsers: ["json", "urlencoded"],
    requests: post(DLR_FORM, { ...AUTH, "content-type": "application/x-www-form-urlencoded" }),
    expect: { status: 200, calls: [delivered(FORM_REPORT)] },
  },
  {
    name: "a form, pre-parsed by express.urlencoded({ extended: true })",
    expressParsers: ["urlencoded-extended"],
    requests: post(DLR_FORM, { ...AUTH, "content-type": "application/x-www-form-urlencoded" }),
    expect: { status: 200, calls: [delivered(FORM_REPORT)] },
  },
  {
    name: "text/plain JSON, pre-read by express.text()",
    expressParsers: ["text"],
    requests: post(DLR_JSON, { ...AUTH, "content-type": "text/plain" }),
    expect: { status: 200, calls: [delivered()] },
  },
  {
    name: "the DLR sample, pre-read by express.text({ type: '*/*' })",
    expressParsers: ["text-any"],
    requests: post(SAMPLE_DLR_TEXT),
    expect: { status: 200, calls: [delivered()] },
  },
  {
    name: "the call sample, pre-read into a Buffer by express.raw({ type: '*/*' })",
    expressParsers: ["raw-any", "text-any", "urlencoded", "json"],
    requests: post(SAMPLE_CALL_TEXT),
    expect: { status: 200, calls: [called] },
  },
  {
    name: "a wrong token, body pre-parsed by express.json()",
    expressParsers: ["json"],
    requests: post(DLR_JSON, { ...JSON_TYPE, authorization: "Bearer not-the-token" }),
    expect: {
      status: 401,
      code: "unauthorized",
      headers: { "www-authenticate": `${CHALLENGE}, error="invalid_token"` },
      calls: [],
    },
  },
  {
    name: 'units: "abc", pre-parsed by express.json(): null with a warning',
    expressParsers: ["json"],
    requests: post(JSON.stringify({ ...SAMPLE_DLR, units: "abc" })),
    expect: {
      status: 200,
      calls: [
        delivered({
          ...DLR_REPORT,
          units: null,
          warnings: [warning("units", /"abc"/)],
          raw: { ...SAMPLE_DLR, units: "abc" },
        }),
      ],
    },
  },
  {
    name: "a DLR without an id, pre-parsed by express.json(): 400",
    expressParsers: ["json"],
    requests: post(JSON.stringify(without(SAMPLE_DLR as Record<string, string>, "id"))),
    expect: { status: 400, code: "invalid_report", message: /"id"/, calls: [] },
  },
  {
    name: "an empty object, pre-parsed by express.json()",
    expressParsers: ["json"],
    requests: post("{}"),
    expect: { status: 400, code: "unrecognized_report", calls: [] },
  },
  {
    name: "an empty body, with express.json() first",
    expressParsers: ["json"],
    requests: post(""),
    expect: { status: 400, code: "invalid_json", calls: [] },
  },
  {
    name: "a 70 KiB body, pre-parsed by express.json()",
    expressParsers: ["json"],
    requests: post(dlrOfSize(70 * 1024).body),
    expect: { status: 413, code: "payload_too_large", calls: [] },
  },
  {
    name: "a 70 KiB body, pre-read into a Buffer by express.raw({ type: '*/*' })",
    expressParsers: ["raw-any"],
    requests: post(dlrOfSize(70 * 1024).body),
    expect: { status: 413, code: "payload_too_large", calls: [] },
  },

  // ---- No handler for that kind ------------------------------------------------------------
  {
    name: "a call report to a receiver with only onDelivery: 200, no call",
    setup: { handlers: "delivery-only" },
    requests: post(CALL_JSON),
    expect: { status: 200, calls: [] },
  },
  {
    name: "a DLR to a receiver with only onCall: 200, no call",
    setup: { handlers: "call-only" },
    requests: post(DLR_JSON),
    expect: { status: 200, calls: [] },
  },

  // ---- Handlers attached after construction: webhookReceiver(), then .onDelivery(fn) --------
  // (Report ids of their own: the workerd target keeps one receiver per setup across cases,
  // and the zero-argument form deduplicates, as its users get it.)
  {
    name: "zero-argument form, handlers attached after: a DLR reaches onDelivery",
    setup: ZERO_ARGUMENT,
    requests: post(JSON.stringify(dlrWithId(ATTACHED_DLR_ID))),
    expect: {
      status: 200,
      calls: [delivered({ ...DLR_REPORT, id: ATTACHED_DLR_ID, raw: dlrWithId(ATTACHED_DLR_ID) })],
    },
  },
  {
    name: "zero-argument form, handlers attached after: a call report reaches onCall",
    setup: ZERO_ARGUMENT,
    requests: post(CALL_JSON),
    expect: { status: 200, calls: [called] },
  },
  {
    name: "zero-argument form, no handler attached yet: 503 no_handler with Retry-After, no call",
    setup: { ...ZERO_ARGUMENT, attach: "none" },
    requests: post(DLR_JSON),
    expect: {
      status: 503,
      code: "no_handler",
      message: /onDelivery/,
      headers: { "retry-after": /^\d+$/ },
      calls: [],
    },
  },
  {
    name: "options without handlers, handlers attached: a DLR reaches onDelivery",
    setup: { form: "attached" },
    requests: post(DLR_JSON),
    expect: { status: 200, calls: [delivered()] },
  },
  {
    name: "options with a composed template, its handler attached: the field-notes GET example",
    setup: { ...CALL_EXAMPLE_GET, form: "attached" },
    requests: send("GET", CALL_EXAMPLE_QUERY),
    expect: { status: 200, calls: [composedCall(CALL_EXAMPLE_GOT, CALL_QUERY)] },
  },

  // ---- Composed: the field-notes call example ----------------------------------------------
  {
    name: "composed call, the field-notes example as GET: values from the query, {{id}} fills mid",
    setup: CALL_EXAMPLE_GET,
    requests: send("GET", CALL_EXAMPLE_QUERY),
    expect: { status: 200, calls: [composedCall(CALL_EXAMPLE_GOT, CALL_QUERY)] },
  },
  {
    name: "composed call, the field-notes example as POST: query and JSON body keys",
    setup: CALL_EXAMPLE_POST,
    requests: send("POST", CALL_EXAMPLE_QUERY, JSON.stringify(CALL_EXAMPLE_BODY)),
    expect: {
      status: 200,
      calls: [
        composedCall(
          { ...CALL_EXAMPLE_GOT, duration: 23 },
          { ...CALL_QUERY, ...CALL_EXAMPLE_BODY },
        ),
      ],
    },
  },
  {
    name: "composed call GET: a promised query key missing is 400 naming it",
    setup: CALL_EXAMPLE_GET,
    requests: send("GET", `${CALL_EXAMPLE_PATH}?call_id=${CALL_REPORT.mid}&message_status=ANSWER`),
    expect: { status: 400, code: "invalid_report", message: /"to"/, calls: [] },
  },
  {
    name: "composed call GET: an empty promised text value is an empty string",
    setup: CALL_EXAMPLE_GET,
    requests: send(
      "GET",
      `${CALL_EXAMPLE_PATH}?call_id=${CALL_REPORT.mid}&to=&message_status=ANSWER`,
    ),
    expect: {
      status: 200,
      calls: [composedCall({ ...CALL_EXAMPLE_GOT, to: "" }, { ...CALL_QUERY, to: "" })],
    },
  },
  {
    name: "composed call POST: a promised body key missing is 400 naming it",
    setup: CALL_EXAMPLE_POST,
    requests: send(
      "POST",
      CALL_EXAMPLE_QUERY,
      JSON.stringify(without(CALL_EXAMPLE_BODY, "duration")),
    ),
    expect: { status: 400, code: "invalid_report", message: /"duration"/, calls: [] },
  },
  {
    name: "composed call GET: a template without path placeholders leaves the path to the route",
    setup: CALL_EXAMPLE_GET,
    requests: send("GET", `/webhooks/ack/other?${new URLSearchParams(CALL_QUERY)}`),
    expect: { status: 200, calls: [composedCall(CALL_EXAMPLE_GOT, CALL_QUERY)] },
  },
  {
    name: "composed call GET: POST is 405 with Allow: GET",
    setup: CALL_EXAMPLE_GET,
    requests: send("POST", CALL_EXAMPLE_QUERY, JSON.stringify(CALL_EXAMPLE_BODY)),
    expect: { status: 405, code: "method_not_allowed", headers: { allow: "GET" }, calls: [] },
  },
  {
    name: "composed call POST: GET is 405 with Allow: POST",
    setup: CALL_EXAMPLE_POST,
    requests: send("GET", CALL_EXAMPLE_QUERY),
    expect: { status: 405, code: "method_not_allowed", headers: { allow: "POST" }, calls: [] },
  },
  {
    name: "composed call GET: without the token, 401",
    setup: CALL_EXAMPLE_GET,
    requests: send("GET", CALL_EXAMPLE_QUERY, undefined, {}),
    expect: {
      status: 401,
      code: "unauthorized",
      headers: { "www-authenticate": CHALLENGE },
      calls: [],
    },
  },

  // ---- Composed: a delivery template in each method and body format ----------------------
  {
    name: "composed delivery, GET: values from the query, coerced like a standard push",
    setup: DLR_GET,
    requests: send("GET", DLR_QUERY_URL),
    expect: { status: 200, calls: [composedDelivery(DLR_VALUES)] },
  },
  {
    name: "composed delivery, GET reads only the query (a stray Content-Type is ignored)",
    setup: DLR_GET,
    requests: send("GET", DLR_QUERY_URL, undefined, {
      ...AUTH,
      "content-type": "application/xml",
    }),
    expect: { status: 200, calls: [composedDelivery(DLR_VALUES)] },
  },
  // POST and PUT, each in the three body formats.
  ...(["POST", "PUT"] as const).flatMap((method) =>
    [
      ["JSON", asJson, JSON_HEADERS],
      ["urlencoded", asUrlencoded, FORM_HEADERS],
      ["multipart/form-data", multipart, MULTIPART_HEADERS],
    ].map(
      ([label, encode, headers]): ConformanceCase => ({
        name: `composed delivery, ${method} ${label}`,
        setup: BODY_TEMPLATES[method][label === "JSON" ? "json" : "form"],
        requests: send(
          method,
          URL,
          (encode as (values: Record<string, string>) => string)(DLR_VALUES),
          headers as Record<string, string>,
        ),
        expect: { status: 200, calls: [composedDelivery(DLR_VALUES)] },
      }),
    ),
  ),
  {
    name: "composed delivery POST: a promised body key missing is 400 naming it",
    setup: DLR_POST_FORM,
    requests: send("POST", URL, asUrlencoded(without(DLR_VALUES, "parts")), FORM_HEADERS),
    expect: { status: 400, code: "invalid_report", message: /"parts"/, calls: [] },
  },
  {
    name: "composed delivery: empty promised numbers are null",
    setup: DLR_POST_JSON,
    requests: send("POST", URL, asJson({ ...DLR_VALUES, cost: "", parts: "" })),
    expect: {
      status: 200,
      calls: [
        composedDelivery({ ...DLR_VALUES, cost: "", parts: "" }, { credits: null, units: null }),
      ],
    },
  },
  {
    name: "composed delivery: empty promised times (wall-clock and unix) are null",
    setup: DLR_GET,
    requests: send("GET", `${URL}?${asUrlencoded({ ...DLR_VALUES, delivered: "", sent: "" })}`),
    expect: {
      status: 200,
      calls: [
        composedDelivery(
          { ...DLR_VALUES, delivered: "", sent: "" },
          {
            deliveredAt: null,
            sentAt: null,
          },
        ),
      ],
    },
  },
  {
    name: "composed delivery: empty promised text values are empty strings",
    setup: DLR_PUT_FORM,
    requests: send("PUT", URL, multipart({ ...DLR_VALUES, phone: "", ref: "" }), MULTIPART_HEADERS),
    expect: {
      status: 200,
      calls: [composedDelivery({ ...DLR_VALUES, phone: "", ref: "" }, { mobile: "", custom: "" })],
    },
  },
  {
    name: 'composed delivery: an unusable value (units "abc") is null with a warning, as in a standard push',
    setup: DLR_POST_JSON,
    requests: send("POST", URL, asJson({ ...DLR_VALUES, parts: "abc" })),
    expect: {
      status: 200,
      calls: [
        composedDelivery(
          { ...DLR_VALUES, parts: "abc" },
          { units: null, warnings: [warning("units", /"abc"/)] },
        ),
      ],
    },
  },
  {
    name: "composed delivery: {{sent_time}} and {{submit_time}} filled with unix digits are unix times",
    setup: {
      composed: {
        type: "delivery",
        url: "https://example.com/webhooks",
        body: {
          msg_id: "{{id}}",
          state: "{{status}}",
          sent: "{{sent_time}}",
          submitted: "{{submit_time}}",
        },
      },
    },
    requests: send(
      "POST",
      URL,
      asJson({
        msg_id: DLR_REPORT.id,
        state: "DELIVRD",
        sent: "1617965868",
        submitted: "1617965869000",
      }),
    ),
    expect: {
      status: 200,
      calls: [
        delivered({
          ...PATH_REPORT,
          sentAt: DLR_REPORT.sentAt,
          submittedAt: DLR_REPORT.submittedAt,
          raw: {
            msg_id: DLR_REPORT.id,
            state: "DELIVRD",
            sent: "1617965868",
            submitted: "1617965869000",
          },
        }),
      ],
    },
  },
  {
    name: "composed delivery POST form: application/xml is 415",
    setup: DLR_POST_FORM,
    requests: send("POST", URL, "<report/>", { ...AUTH, "content-type": "application/xml" }),
    expect: { status: 415, code: "unsupported_media_type", calls: [] },
  },
  {
    name: "composed delivery POST: PUT is 405 with Allow: POST",
    setup: DLR_POST_JSON,
    requests: send("PUT", URL, asJson(DLR_VALUES)),
    expect: { status: 405, code: "method_not_allowed", headers: { allow: "POST" }, calls: [] },
  },
  {
    name: "composed delivery PUT: POST is 405 with Allow: PUT",
    setup: DLR_PUT_JSON,
    requests: send("POST", URL, asJson(DLR_VALUES)),
    expect: { status: 405, code: "method_not_allowed", headers: { allow: "PUT" }, calls: [] },
  },
  {
    name: "composed delivery GET: DELETE is 405 with Allow: GET",
    setup: DLR_GET,
    requests: send("DELETE", DLR_QUERY_URL),
    expect: { status: 405, code: "method_not_allowed", headers: { allow: "GET" }, calls: [] },
  },

  // ---- Composed: forms the shared grammar (@reportkit/wire) accepts ------------------------
  {
    name: 'composed delivery, format "urlencoded": an application/x-www-form-urlencoded body',
    setup: DLR_POST_URLENCODED,
    requests: send("POST", URL, asUrlencoded(DLR_VALUES), FORM_HEADERS),
    expect: { status: 200, calls: [composedDelivery(DLR_VALUES)] },
  },
  {
    name: 'composed delivery, format "urlencoded": read like "form" (a multipart body too)',
    setup: DLR_POST_URLENCODED,
    requests: send("POST", URL, multipart(DLR_VALUES), MULTIPART_HEADERS),
    expect: { status: 200, calls: [composedDelivery(DLR_VALUES)] },
  },
  {
    name: 'composed delivery, method "get" in lower case, text around a query placeholder, unix {{sent_time}}',
    setup: DLR_LITERAL_GET,
    requests: send("GET", `${URL}?${asUrlencoded(LITERAL_QUERY)}`),
    expect: {
      status: 200,
      calls: [
        delivered({
          ...PATH_REPORT,
          sentAt: DLR_REPORT.sentAt, // the instant of the unix digits, as in a standard push
          raw: LITERAL_QUERY,
        }),
      ],
    },
  },
  {
    name: 'composed delivery, method "get": POST is 405 with Allow: GET',
    setup: DLR_LITERAL_GET,
    requests: send("POST", `${URL}?${asUrlencoded(LITERAL_QUERY)}`, "{}"),
    expect: { status: 405, code: "method_not_allowed", headers: { allow: "GET" }, calls: [] },
  },
  {
    name: "composed query placeholder with text around it: a value without that text is 400 naming it",
    setup: DLR_LITERAL_GET,
    requests: send("GET", `${URL}?${asUrlencoded({ ...LITERAL_QUERY, ref: DLR_REPORT.id })}`),
    expect: {
      status: 400,
      code: "invalid_report",
      message: /"ref".*"dlr-\{\{id\}\}\.x"/,
      calls: [],
    },
  },

  // ---- Composed: path placeholders and a custom token header -------------------------------
  {
    name: "composed delivery, PUT with path placeholders and an x-api-key token",
    setup: DLR_PATH_PUT,
    requests: send("PUT", DLR_PATH_URL, undefined, API_KEY),
    expect: { status: 200, calls: [delivered(PATH_REPORT)] },
  },
  {
    name: "composed path template: a value in a segment with text around it, the query and the body",
    setup: DLR_MIXED,
    requests: send(
      "POST",
      `/webhooks/hooks/dlr-${encodeURIComponent(DLR_REPORT.id)}.json?state=DELIVRD`,
      JSON.stringify(MIXED_BODY),
    ),
    expect: { status: 200, calls: [delivered(MIXED_REPORT)] },
  },
  {
    name: "composed path template: a literal segment that differs is 400",
    setup: DLR_PATH_PUT,
    requests: send(
      "PUT",
      `/webhooks/other/${encodeURIComponent(DLR_REPORT.id)}/DELIVRD`,
      undefined,
      API_KEY,
    ),
    expect: { status: 400, code: "invalid_report", calls: [] },
  },
  {
    name: "composed path template: a request path too short for it is 400",
    setup: DLR_PATH_PUT,
    requests: send("PUT", "/webhooks/DELIVRD", undefined, API_KEY),
    expect: { status: 400, code: "invalid_report", calls: [] },
  },
  {
    name: "composed path template: POST is 405 with Allow: PUT",
    setup: DLR_PATH_PUT,
    requests: send("POST", DLR_PATH_URL, undefined, API_KEY),
    expect: { status: 405, code: "method_not_allowed", headers: { allow: "PUT" }, calls: [] },
  },
  {
    name: "x-api-key: the header name in another case",
    setup: DLR_PATH_PUT,
    requests: send("PUT", DLR_PATH_URL, undefined, { "X-API-Key": TOKEN }),
    expect: { status: 200, calls: [delivered(PATH_REPORT)] },
  },
  {
    name: "x-api-key missing: 401",
    setup: DLR_PATH_PUT,
    requests: send("PUT", DLR_PATH_URL, undefined, {}),
    expect: {
      status: 401,
      code: "unauthorized",
      message: /x-api-key/,
      headers: { "www-authenticate": /realm="reportkit"/ },
      calls: [],
    },
  },
  {
    name: "x-api-key with a wrong token: 401 invalid_token",
    setup: DLR_PATH_PUT,
    requests: send("PUT", DLR_PATH_URL, undefined, { "x-api-key": "not-the-token" }),
    expect: {
      status: 401,
      code: "unauthorized",
      headers: { "www-authenticate": /error="invalid_token"/ },
      calls: [],
    },
  },
  {
    name: "x-api-key compares the whole value: 'Bearer <token>' there is a wrong token",
    setup: DLR_PATH_PUT,
    requests: send("PUT", DLR_PATH_URL, undefined, { "x-api-key": `Bearer ${TOKEN}` }),
    expect: {
      status: 401,
      code: "unauthorized",
      headers: { "www-authenticate": /error="invalid_token"/ },
      calls: [],
    },
  },
  {
    name: "x-api-key receiver: the token in Authorization: Bearer instead is 401",
    setup: DLR_PATH_PUT,
    requests: send("PUT", DLR_PATH_URL, undefined, AUTH),
    expect: {
      status: 401,
      code: "unauthorized",
      headers: { "www-authenticate": /realm="reportkit"/ },
      calls: [],
    },
  },

  // ---- Composed bodies an Express body parser read first (a plain request elsewhere) -------
  {
    name: "composed delivery POST urlencoded, pre-parsed by express.urlencoded()",
    setup: DLR_POST_FORM,
    expressParsers: ["urlencoded"],
    requests: send("POST", URL, asUrlencoded(DLR_VALUES), FORM_HEADERS),
    expect: { status: 200, calls: [composedDelivery(DLR_VALUES)] },
  },
  {
    name: "composed delivery PUT urlencoded, pre-parsed by express.urlencoded({ extended: true })",
    setup: DLR_PUT_FORM,
    expressParsers: ["json", "urlencoded-extended"],
    requests: send("PUT", URL, asUrlencoded(DLR_VALUES), FORM_HEADERS),
    expect: { status: 200, calls: [composedDelivery(DLR_VALUES)] },
  },
  {
    name: "composed delivery PUT JSON, pre-parsed by express.json()",
    setup: DLR_PUT_JSON,
    expressParsers: ["urlencoded", "json"],
    requests: send("PUT", URL, asJson(DLR_VALUES)),
    expect: { status: 200, calls: [composedDelivery(DLR_VALUES)] },
  },
  {
    name: "composed delivery PUT multipart, with express.json() and express.urlencoded() first",
    setup: DLR_PUT_FORM,
    expressParsers: ["json", "urlencoded"],
    requests: send("PUT", URL, multipart(DLR_VALUES), MULTIPART_HEADERS),
    expect: { status: 200, calls: [composedDelivery(DLR_VALUES)] },
  },
  {
    name: "composed call GET, with express.json() and express.urlencoded() first",
    setup: CALL_EXAMPLE_GET,
    expressParsers: ["json", "urlencoded"],
    requests: send("GET", CALL_EXAMPLE_QUERY),
    expect: { status: 200, calls: [composedCall(CALL_EXAMPLE_GOT, CALL_QUERY)] },
  },
  {
    name: "composed call POST JSON (the field-notes example), pre-parsed by express.json()",
    setup: CALL_EXAMPLE_POST,
    expressParsers: ["json"],
    requests: send("POST", CALL_EXAMPLE_QUERY, JSON.stringify(CALL_EXAMPLE_BODY)),
    expect: {
      status: 200,
      calls: [
        composedCall(
          { ...CALL_EXAMPLE_GOT, duration: 23 },
          { ...CALL_QUERY, ...CALL_EXAMPLE_BODY },
        ),
      ],
    },
  },
];

/** A setup the receiver must refuse when it is built, with a message naming the problem. */
export interface ConstructionErrorCase {
  name: string;
  setup: Setup;
  /** Each must match the error's message. */
  messages: RegExp[];
}

export const CONSTRUCTION_ERRORS: ConstructionErrorCase[] = [
  {
    name: "an unknown variable in a delivery template: named, and the allowed ones listed",
    setup: {
      composed: {
        type: "delivery",
        url: "https://example.com/dlr?id={{id}}&state={{status}}&at={{delivered_at}}",
      },
    },
    messages: [/unknown variable/i, /\{\{delivered_at\}\}/, /\{\{deliv_at\}\}.*\{\{submit_at\}\}/],
  },
  {
    name: "an unknown variable in a call template (mobile is a delivery variable)",
    setup: {
      composed: {
        type: "call",
        url: "https://example.com/calls",
        body: { state: "{{status}}", phone: "{{mobile}}" },
      },
    },
    messages: [/unknown variable/i, /\{\{mobile\}\}/, /\{\{recording_url\}\}/],
  },
  {
    name: "a body value that is not exactly one {{variable}}: text around it",
    setup: {
      composed: {
        type: "delivery",
        url: "https://example.com/dlr",
        body: { msg_id: "{{id}}", state: "status={{status}}" },
      },
    },
    messages: [/"state"/, /exactly one/i],
  },
  {
    name: "a body value that is not exactly one {{variable}}: two of them",
    setup: {
      composed: {
        type: "delivery",
        url: "https://example.com/dlr",
        body: { both: "{{id}}{{status}}" },
      },
    },
    messages: [/"both"/, /exactly one/i],
  },
  {
    name: "a body value that is not exactly one {{variable}}: a constant",
    setup: {
      composed: {
        type: "delivery",
        url: "https://example.com/dlr?id={{id}}&state={{status}}",
        body: { source: "panel" },
      },
    },
    messages: [/"source"/, /exactly one/i],
  },
  {
    name: "a GET template with a body",
    setup: {
      composed: {
        type: "delivery",
        method: "GET",
        url: "https://example.com/dlr?id={{id}}",
        body: { state: "{{status}}" },
      },
    },
    messages: [/GET/, /body/i],
  },
  {
    name: "a delivery template without {{id}}",
    setup: { composed: { type: "delivery", url: "https://example.com/dlr?state={{status}}" } },
    messages: [/\{\{id\}\}/],
  },
  {
    name: "a delivery template without {{status}}",
    setup: {
      composed: {
        type: "delivery",
        url: "https://example.com/dlr",
        body: { msg_id: "{{id}}", phone: "{{mobile}}" },
      },
    },
    messages: [/\{\{status\}\}/],
  },
  {
    name: "a call template without {{status}}",
    setup: {
      composed: {
        type: "call",
        method: "GET",
        url: "https://www.domain.com/ack/receive?call_id={{id}}&to={{to}}",
      },
    },
    messages: [/call/, /\{\{status\}\}/],
  },
  {
    name: "a call template without any identity ({{id}}, {{mid}} or {{webhook_id}})",
    setup: {
      composed: {
        type: "call",
        method: "GET",
        url: "https://www.domain.com/ack/receive?to={{to}}&message_status={{status}}",
      },
    },
    messages: [/call template must carry one of \{\{id\}\}, \{\{mid\}\} or \{\{webhook_id\}\}/],
  },
  {
    name: "two {{variables}} in one query value",
    setup: {
      composed: {
        type: "delivery",
        method: "GET",
        url: "https://example.com/dlr?v={{id}}-{{status}}",
      },
    },
    messages: [/query parameter "v" has 2 \{\{variables\}\}/],
  },
  {
    name: "a {{variable}} in a header (the documentation puts them in the url and body only)",
    setup: {
      composed: {
        type: "delivery",
        method: "GET",
        url: "https://example.com/dlr?id={{id}}&s={{status}}",
        headers: { "x-report": "{{id}}" },
      },
    },
    messages: [/header x-report holds a \{\{variable\}\}/],
  },
  {
    name: "a delivery template with only onCall",
    setup: { handlers: "call-only", composed: DLR_POST_JSON.composed as ComposedTemplate },
    messages: [/onDelivery/],
  },
];
