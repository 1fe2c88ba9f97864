// Composed webhooks: the customer's own template (README "Composed webhooks"), shared by the
// case files that send them.
import type { Call, Setup } from "../setup.js";
import {
  AUTH,
  CALL_REPORT,
  DLR_REPORT,
  delivered,
  FORM_TYPE,
  MULTIPART_TYPE,
  NO_EXTRA_FIELDS,
  URL,
} from "./shared.js";

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
  recordingExpiresAt: null,
  billing: null,
  status1: null,
  status2: null,
  hangupBy: null,
  reportedAt: null,
  warnings: [],
};

// The field-notes call example, as is: the customer's own query keys (call_id,
// message_status), and a JSON body. A call report's {{id}} fills `mid`. Its URL has a path of
// its own (/ack/receive): mounted under /webhooks, the request path ends with it.
const CALL_EXAMPLE_URL =
  "https://www.domain.com/ack/receive?call_id={{id}}&to={{to}}&message_status={{status}}";
export const CALL_EXAMPLE_GET: Setup = {
  subpaths: true,
  composed: { type: "call", method: "GET", url: CALL_EXAMPLE_URL },
};
export const CALL_EXAMPLE_POST: Setup = {
  subpaths: true,
  composed: {
    type: "call",
    method: "POST",
    url: CALL_EXAMPLE_URL,
    body: { id: "{{id}}", to: "{{to}}", status: "{{status}}", duration: "{{duration}}" },
    format: "json",
  },
};
export const CALL_EXAMPLE_PATH = "/webhooks/ack/receive";
export const CALL_QUERY = {
  call_id: CALL_REPORT.mid,
  to: "919876543210",
  message_status: "ANSWER",
};
export const CALL_EXAMPLE_QUERY = `${CALL_EXAMPLE_PATH}?${new URLSearchParams(CALL_QUERY)}`;
export const CALL_EXAMPLE_BODY = {
  id: CALL_REPORT.mid,
  to: "919876543210",
  status: "ANSWER",
  duration: "23",
};
export const composedCall = (fields: object, raw: object): Call => ({
  handler: "onCall",
  report: { ...EMPTY_CALL, ...fields, raw },
});
export const CALL_EXAMPLE_GOT = {
  mid: CALL_REPORT.mid,
  to: "919876543210",
  status: "ANSWER",
  final: true,
  outcome: "answered",
  transient: false,
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
export const DLR_VALUES: Record<keyof typeof DLR_KEYS, string> = {
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
export const composedDelivery = (values: Record<string, string>, fields: object = {}): Call =>
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
export const DLR_GET = dlrTemplate("GET");
export const DLR_POST_JSON = dlrTemplate("POST", "json");
export const DLR_POST_FORM = dlrTemplate("POST", "form");
export const DLR_PUT_JSON = dlrTemplate("PUT"); // format defaults to JSON
export const DLR_PUT_FORM = dlrTemplate("PUT", "form");
export const DLR_POST_URLENCODED = dlrTemplate("POST", "urlencoded");
export const BODY_TEMPLATES = {
  POST: { json: DLR_POST_JSON, form: DLR_POST_FORM },
  PUT: { json: DLR_PUT_JSON, form: DLR_PUT_FORM },
};

/** The values as each body format carries them. */
export const asJson = (values: Record<string, string>) => JSON.stringify(values);
export const asUrlencoded = (values: Record<string, string>) =>
  new URLSearchParams(values).toString();
export const FORM_HEADERS = { ...AUTH, "content-type": FORM_TYPE };
export const MULTIPART_HEADERS = { ...AUTH, "content-type": MULTIPART_TYPE };
export const DLR_QUERY_URL = `${URL}?${asUrlencoded(DLR_VALUES)}`;

export const PATH_REPORT = {
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
