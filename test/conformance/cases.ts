// The conformance table: every request here gets the same reply, and the same handler calls,
// from @reportkit/core and from every adapter. Each target file runs it unchanged.
import type { ErrorCode } from "@reportkit/core";
import {
  SAMPLE_CALL,
  SAMPLE_CALL_TEXT,
  SAMPLE_DLR,
  SAMPLE_DLR_TEXT,
  TOKEN,
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

export interface ConformanceCase {
  name: string;
  setup?: Setup;
  /** Express only: these parsers run first (in this order); the reply must not change. */
  expressParsers?: ExpressParser[];
  /** Sent all at once. */
  requests: RequestSpec[];
  expect: {
    status: number;
    code?: ErrorCode;
    headers?: Record<string, string>;
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

const DLR_REPORT = {
  type: "delivery",
  id: "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1",
  mobile: "919876543210",
  status: "DELIVRD",
  credits: "2.0000",
  units: 1,
  deliveredAt: "2021-04-09T16:27:51.000Z",
  sentAt: "2021-04-09T16:27:48.000Z",
  submittedAt: "2021-04-09T16:27:49.000Z",
  cid: "6789",
  custom: "order-1234",
  raw: SAMPLE_DLR,
};

const CALL_REPORT = {
  type: "call",
  webhookId: null,
  mid: "5f2b1a9c-3d4e-4f60-8a7b-9c0d1e2f3a4b",
  bridge: "918068281234",
  from: "918068281235",
  to: "919876543210",
  startedAt: "2021-04-09T16:27:51.000Z",
  endedAt: "2021-04-09T16:28:14.000Z",
  duration: 23,
  flowId: 4521,
  status: "ANSWER",
  source: "OBD",
  recordingUrl: "https://recordings.example.com/5f2b1a9c.mp3",
  raw: SAMPLE_CALL,
};

const delivered = (report: object = DLR_REPORT): Call => ({ handler: "onDelivery", report });
const called: Call = { handler: "onCall", report: CALL_REPORT };

const DLR_JSON = JSON.stringify(SAMPLE_DLR);
const CALL_JSON = JSON.stringify(SAMPLE_CALL);

// A form sends every value as a string; the report is the same, `raw` keeps the strings.
const DLR_FORM_FIELDS = Object.fromEntries(
  Object.entries(SAMPLE_DLR).map(([key, value]) => [key, String(value)]),
);
const DLR_FORM = new URLSearchParams(DLR_FORM_FIELDS).toString();
const FORM_REPORT = { ...DLR_REPORT, raw: DLR_FORM_FIELDS };
const BOUNDARY = "----reportkit-conformance";
const DLR_MULTIPART = `${Object.entries(DLR_FORM_FIELDS)
  .map(
    ([key, value]) =>
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${key}"\r\n\r\n${value}\r\n`,
  )
  .join("")}--${BOUNDARY}--\r\n`;

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
    name: 'units: "abc"',
    requests: post(JSON.stringify({ ...SAMPLE_DLR, units: "abc" })),
    expect: { status: 400, code: "invalid_report", calls: [] },
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
    name: 'units: "abc", pre-parsed by express.json()',
    expressParsers: ["json"],
    requests: post(JSON.stringify({ ...SAMPLE_DLR, units: "abc" })),
    expect: { status: 400, code: "invalid_report", calls: [] },
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
];
