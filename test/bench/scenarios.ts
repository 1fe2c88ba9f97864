import { SAMPLE_CALL, SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";

/** One kind of request the load generator repeats. */
export interface Scenario {
  readonly name: string;
  readonly method: "GET" | "POST";
  /** Path and query. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array<ArrayBuffer> | undefined;
}

const authorization = `Bearer ${TOKEN}`;

/**
 * Where the load generator writes a fresh id into each request (loader.mjs): every request is
 * a report of its own, so reportkit's default dedupe store claims and completes a key for
 * each, as with a real sender. The other servers get the same requests.
 */
export const UNIQUE = "__UNIQUE__";
const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const text = (value: unknown) => String(value);

/** The field-notes DLR as a sender's json_encode produces it: what every server receives. */
export const DLR: Scenario = {
  name: "DLR (JSON)",
  method: "POST",
  path: "/webhooks",
  headers: { authorization, "content-type": "application/json" },
  body: json({ ...SAMPLE_DLR, id: `${SAMPLE_DLR.id}-${UNIQUE}` }),
};

/**
 * The DLR for the dedupe store rows (off, memory, Redis): like every scenario, a new message id
 * on every request, so with deduplication on each one claims its key and marks it done (the
 * store's full cost).
 */
export const DLR_UNIQUE_IDS: Scenario = { ...DLR, name: "DLR, a new id each (JSON)" };

/**
 * The DLR for the telemetry rows (`telemetry: otelTelemetry()` on the OpenTelemetry SDK against
 * none): the same request, named apart so that those two are loaded together.
 */
export const DLR_TELEMETRY: Scenario = { ...DLR, name: "DLR, telemetry compared (JSON)" };

export const CALL: Scenario = {
  name: "call report (JSON)",
  method: "POST",
  path: "/webhooks",
  headers: { authorization, "content-type": "application/json" },
  body: json({ ...SAMPLE_CALL, mid: `${SAMPLE_CALL.mid}-${UNIQUE}` }),
};

/**
 * The composed templates the reportkit-composed servers mount, in the shape of the field
 * notes' examples: the customer's own key names, a GET with values in the query string, and
 * a multipart form body.
 */
export const COMPOSED_TEMPLATES = {
  get: {
    path: "/webhooks/call",
    template: {
      type: "call",
      method: "GET",
      url: "https://www.domain.com/webhooks/call?call_id={{id}}&to={{to}}&message_status={{status}}&duration={{duration}}",
    },
  },
  multipart: {
    path: "/webhooks/sms",
    template: {
      type: "delivery",
      method: "POST",
      url: "https://www.domain.com/webhooks/sms",
      format: "form",
      body: {
        message_id: "{{id}}",
        phone: "{{mobile}}",
        message_status: "{{status}}",
        delivered: "{{deliv_time}}",
        sent: "{{sent_time}}",
        credits: "{{credits}}",
        ref: "{{custom}}",
      },
    },
  },
} as const;

const composedQuery = new URLSearchParams({
  call_id: `${text(SAMPLE_CALL.mid)}-${UNIQUE}`,
  to: text(SAMPLE_CALL.to),
  message_status: text(SAMPLE_CALL.status),
  duration: text(SAMPLE_CALL.duration),
});

export const COMPOSED_GET: Scenario = {
  name: "composed GET (query)",
  method: "GET",
  path: `${COMPOSED_TEMPLATES.get.path}?${composedQuery}`,
  headers: { authorization },
  body: undefined,
};

/** The composed multipart request, serialized once (boundary and all) by undici's FormData. */
export async function composedMultipart(): Promise<Scenario> {
  const form = new FormData();
  const fields: Record<string, unknown> = {
    message_id: `${text(SAMPLE_DLR.id)}-${UNIQUE}`,
    phone: SAMPLE_DLR.mobile,
    message_status: SAMPLE_DLR.status,
    delivered: SAMPLE_DLR.deliv_time,
    sent: SAMPLE_DLR.sent_time,
    credits: SAMPLE_DLR.credits,
    ref: SAMPLE_DLR.custom,
  };
  for (const [key, value] of Object.entries(fields)) form.append(key, text(value));
  const encoded = new Response(form);
  const contentType = encoded.headers.get("content-type");
  if (contentType === null) throw new Error("FormData gave no multipart content-type");
  return {
    name: "composed multipart (form)",
    method: "POST",
    path: COMPOSED_TEMPLATES.multipart.path,
    headers: { authorization, "content-type": contentType },
    body: new Uint8Array(await encoded.arrayBuffer()),
  };
}

/** What the micro-benchmarks and servers need from the fixtures, as JSON for their env. */
export const FIXTURES = {
  dlr: SAMPLE_DLR,
  call: SAMPLE_CALL,
  token: TOKEN,
  composed: COMPOSED_TEMPLATES,
};
