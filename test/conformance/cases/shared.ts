// What several case files share: the standard requests, the reports the samples give, and
// helpers to build requests and expected calls.
import { expect } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR, TOKEN } from "../../fixtures/samples.js";
import type { Call } from "../setup.js";
import type { RequestSpec } from "./types.js";

export const URL = "/webhooks";
export const AUTH = { authorization: `Bearer ${TOKEN}` };
export const JSON_TYPE = { "content-type": "application/json" };
export const JSON_HEADERS = { ...AUTH, ...JSON_TYPE };
export const CHALLENGE = 'Bearer realm="reportkit"';
export const MiB = 1024 * 1024;

export const post = (body: RequestSpec["body"], headers: Record<string, string> = JSON_HEADERS) => [
  { method: "POST", url: URL, headers, body },
];

// Wall-clock times are read in the provider's zone, Asia/Kolkata (UTC+05:30), by default.
export const DLR_REPORT = {
  type: "delivery",
  id: "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1",
  mobile: "919876543210",
  status: "DELIVRD",
  final: true,
  outcome: "delivered",
  reason: null,
  transient: false,
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
export const NO_EXTRA_FIELDS = {
  custom1: null,
  custom2: null,
  location: null,
  region: null,
  provider: null,
  locationCode: null,
  regionCode: null,
  providerCode: null,
};

/** Click2Call's own fields, as an outbound-dial report (or a template without them) has them. */
export const NO_CLICK2CALL_FIELDS = {
  billing: null,
  status1: null,
  status2: null,
  hangupBy: null,
  reportedAt: null,
};

export const CALL_REPORT = {
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
  transient: false,
  source: "OBD",
  recordingUrl: "https://recordings.example.com/5f2b1a9c.mp3",
  // No time of its own: the call's end plus the documented 2 hours.
  recordingExpiresAt: "2021-04-09T12:58:14.000Z",
  ...NO_CLICK2CALL_FIELDS,
  warnings: [],
  raw: SAMPLE_CALL,
};

export const delivered = (report: object = DLR_REPORT): Call => ({ handler: "onDelivery", report });

/** A warning on `field` whose message matches. */
export const warning = (field: string, message: RegExp) => ({
  field,
  message: expect.stringMatching(message),
});

export const called: Call = { handler: "onCall", report: CALL_REPORT };

export const DLR_JSON = JSON.stringify(SAMPLE_DLR);
export const CALL_JSON = JSON.stringify(SAMPLE_CALL);

// A form sends every value as a string; the report is the same, `raw` keeps the strings.
const DLR_FORM_FIELDS = Object.fromEntries(
  Object.entries(SAMPLE_DLR).map(([key, value]) => [key, String(value)]),
);
export const DLR_FORM = new URLSearchParams(DLR_FORM_FIELDS).toString();
export const FORM_REPORT = { ...DLR_REPORT, raw: DLR_FORM_FIELDS };
export const BOUNDARY = "----reportkit-conformance";
export const multipart = (fields: Record<string, string>) =>
  `${Object.entries(fields)
    .map(
      ([key, value]) =>
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${key}"\r\n\r\n${value}\r\n`,
    )
    .join("")}--${BOUNDARY}--\r\n`;
export const DLR_MULTIPART = multipart(DLR_FORM_FIELDS);

/** A valid DLR of exactly `size` bytes, padded by an extra field (unknown keys pass). */
export function dlrOfSize(size: number): { body: string; report: object } {
  const empty = JSON.stringify({ ...SAMPLE_DLR, padding: "" });
  const raw = { ...SAMPLE_DLR, padding: "x".repeat(size - empty.length) };
  return { body: JSON.stringify(raw), report: { ...DLR_REPORT, raw } };
}
export const ONE_MIB = dlrOfSize(MiB);

export function chunked(text: string, size: number): string[] {
  return Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
    text.slice(i * size, (i + 1) * size),
  );
}

export const CONCURRENT = Array.from({ length: 100 }, (_, i) => {
  const raw = { ...SAMPLE_DLR, id: `b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:${i + 1}` };
  return { body: JSON.stringify(raw), report: { ...DLR_REPORT, id: raw.id, raw } };
});

export const FORM_TYPE = "application/x-www-form-urlencoded";
export const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** A request with any method and URL; Bearer token and JSON type unless told otherwise. */
export const send = (
  method: string,
  url: string,
  body?: RequestSpec["body"],
  headers: Record<string, string> = body === undefined ? AUTH : JSON_HEADERS,
): RequestSpec[] => [{ method, url, headers, body }];

/** The values without one key. */
export const without = (values: Record<string, string>, key: string): Record<string, string> =>
  Object.fromEntries(Object.entries(values).filter(([k]) => k !== key));
