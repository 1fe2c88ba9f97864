// Bodies an Express body parser read first (a plain request on every other target).
import { SAMPLE_CALL_TEXT, SAMPLE_DLR, SAMPLE_DLR_TEXT } from "../../fixtures/samples.js";
import {
  AUTH,
  CALL_JSON,
  CHALLENGE,
  called,
  DLR_FORM,
  DLR_JSON,
  DLR_REPORT,
  delivered,
  dlrOfSize,
  FORM_REPORT,
  JSON_TYPE,
  post,
  warning,
  without,
} from "./shared.js";
import type { ConformanceCase } from "./types.js";

export const EXPRESS_PARSER_CASES: ConformanceCase[] = [
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
];
