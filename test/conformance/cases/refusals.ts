// Requests refused: 400, 405, 413, 415, and 500 when the app's own code fails.
import { SAMPLE_DLR } from "../../fixtures/samples.js";
import {
  AUTH,
  CALL_JSON,
  called,
  chunked,
  DLR_JSON,
  DLR_MULTIPART,
  delivered,
  dlrOfSize,
  JSON_HEADERS,
  ONE_MIB,
  post,
  URL,
  without,
} from "./shared.js";
import type { ConformanceCase } from "./types.js";

export const REFUSAL_CASES: ConformanceCase[] = [
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
    name: "a call report without mid, webhook_id or numbers: no identity, 400 naming them",
    requests: post(JSON.stringify({ status: "ANSWER", duration: "23", source: "OBD" })),
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
    expect: { status: 500, code: "secret_check_failed", calls: [] },
  },
  {
    name: "a dedupeKey that returns an empty string: 500 internal_error, no call",
    setup: { dedupeKey: "not a string", dedupe: "memory" },
    requests: post(DLR_JSON),
    expect: { status: 500, code: "internal_error", calls: [] },
  },
];
