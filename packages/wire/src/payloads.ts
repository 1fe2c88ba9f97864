/** The two kinds of report the provider pushes. A composed template states which it carries. */
export type ReportType = "delivery" | "call";

/**
 * The fields of an SMS delivery report as pushed, in the documentation's order: those of
 * provider-interface.md 2.4, then the ones the verification page's sample adds (field-notes.md).
 */
export const DELIVERY_FIELDS = [
  "id",
  "mobile",
  "status",
  "credits",
  "units",
  "deliv_at",
  "sent_at",
  "submit_at",
  "deliv_time",
  "sent_time",
  "submit_time",
  "cid",
  "custom",
  "custom1",
  "custom2",
  "location",
  "region",
  "provider",
  "location_code",
  "region_code",
  "provider_code",
] as const;

/** The fields of a call report as pushed (provider-interface.md 2.5), in its order. */
export const CALL_FIELDS = [
  "webhook_id",
  "bridge",
  "from",
  "to",
  "start_at",
  "end_at",
  "duration",
  "mid",
  "flow_id",
  "status",
  "source",
  "recording_url",
] as const;

export type DeliveryField = (typeof DELIVERY_FIELDS)[number];
export type CallField = (typeof CALL_FIELDS)[number];

/** The fields the verification page's sample adds to 2.4 (field-notes.md). */
export type DeliveryExtraField =
  | "custom1"
  | "custom2"
  | "location"
  | "region"
  | "provider"
  | "location_code"
  | "region_code"
  | "provider_code";

/**
 * An SMS delivery report as senders really push it. The documentation types every field but
 * `units` as a string; senders (PHP) mix numbers and strings, its own sample leaves the unix
 * fields out, and a composed webhook fills an empty string for a value it does not have
 * (field-notes.md): so only `id`, `mobile` and `status` are always there, and each takes a
 * string or a number. Wall-clock times ("2021-04-09 16:27:51") are strings.
 */
export interface DeliveryPayload {
  /** "<uuid>:<n>", e.g. "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1". */
  id: string | number;
  /** Mobile number with country code. */
  mobile: string | number;
  /** DELIVRD, UNDELIV, EXPIRED, ... (SMPP `stat`); any value passes. */
  status: string | number;
  /** Credits charged, four decimals ("0.2500"). */
  credits?: string | number | null;
  /** SMS parts. */
  units?: number | string | null;
  /** Unix seconds: delivered, request received, sent to the operator. */
  deliv_at?: string | number | null;
  sent_at?: string | number | null;
  submit_at?: string | number | null;
  /** The same instants as wall-clock "yyyy-mm-dd HH:MM:SS" in the provider's zone. */
  deliv_time?: string | null;
  sent_time?: string | null;
  submit_time?: string | null;
  /** Undocumented. */
  cid?: string | number | null;
  /** The client's custom id. */
  custom?: string | number | null;
  // The fields below are in the verification page's sample only (field-notes.md); the pull
  // API's records carry `custom1`, `location` and `provider` too. Each may be absent.
  /** Two more values of the client's own, e.g. "campaign-3344". */
  custom1?: string | number | null;
  custom2?: string | number | null;
  /** Where the number is registered: country ("India"), circle ("Bangalore"), operator ("Jio"). */
  location?: string | number | null;
  region?: string | number | null;
  provider?: string | number | null;
  /** Their codes: "in", "KA", "RJ". */
  location_code?: string | number | null;
  region_code?: string | number | null;
  provider_code?: string | number | null;
}

/**
 * A call report as senders really push it: in the documentation's sample `bridge`, `from`,
 * `to` and `flow_id` are JSON numbers, `duration` a digit string and `webhook_id` absent
 * (field-notes.md); any of them may come the other way. Only `status` is always there.
 */
export interface CallPayload {
  webhook_id?: string | number | null;
  /** DID that initiated the call. */
  bridge?: number | string | null;
  from?: number | string | null;
  to?: number | string | null;
  /** Wall-clock "yyyy-mm-dd HH:MM:SS" in the provider's zone. */
  start_at?: string | null;
  end_at?: string | null;
  /** Seconds, a digit string in the documentation. */
  duration?: string | number | null;
  /** The campaign's message id. */
  mid?: string | number | null;
  flow_id?: number | string | null;
  /** ANSWER, BUSY, NOANSWER, ... (Asterisk DIALSTATUS); any value passes. */
  status: string | number;
  /** "OBD" in the documentation. */
  source?: string | number | null;
  recording_url?: string | number | null;
}

/**
 * An SMS delivery report in the shape of the documentation's sample (field-notes.md): the
 * wall-clock `*_time` strings and no unix `*_at` fields, `credits` a four-place decimal string,
 * `units` a number; no delivery time for a message that was not delivered. What the sandbox
 * pushes by default and @reportkit/testing's `deliveryPayload()` builds.
 */
export interface DocumentedDeliveryPayload extends DeliveryPayload {
  id: string;
  mobile: string;
  status: string;
  credits: string;
  units: number;
  deliv_time?: string;
  sent_time: string;
  submit_time: string;
  cid: string;
  custom?: string;
  custom1?: string;
  custom2?: string;
  location?: string;
  region?: string;
  provider?: string;
  location_code?: string;
  region_code?: string;
  provider_code?: string;
}

/**
 * A call report in the shape of the documentation's sample (field-notes.md): `bridge`, `from`,
 * `to` and `flow_id` bare JSON numbers, `duration` a digit string, no `webhook_id`. What the
 * sandbox pushes by default and @reportkit/testing's `callPayload()` builds.
 */
export interface DocumentedCallPayload extends CallPayload {
  bridge: number;
  from: number;
  to: number;
  start_at: string;
  end_at: string;
  duration: string;
  mid: string;
  flow_id: number;
  status: string;
  source: string;
  recording_url?: string;
}

/**
 * The SMS delivery report of the documentation's sample, as valid JSON would carry it. The
 * fields after `custom` are the verification page's sample's, copied as it writes them.
 */
export const DOCUMENTED_DELIVERY_SAMPLE: Readonly<
  DocumentedDeliveryPayload & { deliv_time: string; custom: string } & Required<
      Pick<DocumentedDeliveryPayload, DeliveryExtraField>
    >
> = Object.freeze({
  id: "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1",
  mobile: "919876543210",
  status: "DELIVRD",
  credits: "2.0000",
  units: 1,
  deliv_time: "2021-04-09 16:27:51",
  sent_time: "2021-04-09 16:27:48",
  submit_time: "2021-04-09 16:27:49",
  cid: "6789",
  custom: "order-1234",
  custom1: "campaign-3344",
  custom2: "new-campXXX",
  location: "India",
  region: "Bangalore",
  provider: "Jio",
  location_code: "in",
  region_code: "KA",
  provider_code: "RJ",
});

/** The call report of the documentation's sample, as valid JSON would carry it. */
export const DOCUMENTED_CALL_SAMPLE: Readonly<DocumentedCallPayload & { recording_url: string }> =
  Object.freeze({
    bridge: 918068281234,
    from: 918068281235,
    to: 919876543210,
    start_at: "2021-04-09 16:27:51",
    end_at: "2021-04-09 16:28:14",
    duration: "23",
    mid: "5f2b1a9c-3d4e-4f60-8a7b-9c0d1e2f3a4b",
    flow_id: 4521,
    status: "ANSWER",
    source: "OBD",
    recording_url: "https://recordings.example.com/5f2b1a9c.mp3",
  });
