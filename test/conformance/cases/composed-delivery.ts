// Composed: a delivery template in each method and body format.
import {
  asJson,
  asUrlencoded,
  BODY_TEMPLATES,
  composedDelivery,
  DLR_GET,
  DLR_POST_FORM,
  DLR_POST_JSON,
  DLR_PUT_FORM,
  DLR_PUT_JSON,
  DLR_QUERY_URL,
  DLR_VALUES,
  FORM_HEADERS,
  MULTIPART_HEADERS,
  PATH_REPORT,
} from "./composed-templates.js";
import {
  AUTH,
  DLR_REPORT,
  delivered,
  JSON_HEADERS,
  multipart,
  send,
  URL,
  warning,
  without,
} from "./shared.js";
import type { ConformanceCase } from "./types.js";

export const COMPOSED_DELIVERY_CASES: ConformanceCase[] = [
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
];
