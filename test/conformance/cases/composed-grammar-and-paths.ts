// Composed: forms the shared grammar (@reportkit/wire) accepts, path placeholders and a
// custom token header.
import { TOKEN } from "../../fixtures/samples.js";
import type { Setup } from "../setup.js";
import {
  asUrlencoded,
  composedDelivery,
  DLR_POST_URLENCODED,
  DLR_VALUES,
  FORM_HEADERS,
  MULTIPART_HEADERS,
  PATH_REPORT,
} from "./composed-templates.js";
import { AUTH, DLR_REPORT, delivered, multipart, send, URL } from "./shared.js";
import type { ConformanceCase } from "./types.js";

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

export const COMPOSED_GRAMMAR_AND_PATH_CASES: ConformanceCase[] = [
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
];
