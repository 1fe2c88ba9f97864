// The provider's report fields, once: for each kind of body it pushes with fields of its own, each
// wire field with the report field it fills, how its value is read, and the composed webhook's
// {{variables}} that carry it. Everything else follows from these tables: core's parsing and the
// zod schemas users import, the composed variables (variables.ts) and the payload types
// (payloads.ts). Events (other channels' `{event, payload}` envelopes) are typed by their
// envelope only, so they have no table.

/**
 * How a wire value is read into its report field (core's readers). Every field but the
 * `required` ones may be missing; a value that cannot be read becomes null with a warning.
 * - `identity`: text that tells one report from another: trimmed, never empty, well-formed
 *   text without control characters, at most 255 characters (else it is unusable);
 * - `status`: an identity read by the status table (final, outcome, reason, transient);
 * - `phone`: a phone number, handed on as a digit string;
 * - `text`: text as sent (a number becomes its decimal digits);
 * - `count`: a whole number (a digit string too);
 * - `decimal`: an exact decimal kept as text with at least 4 places ("2.0000");
 * - `unixTime`: unix seconds (milliseconds recognised by their size), the authority on a time;
 * - `wallClock`: "yyyy-mm-dd HH:MM:SS" in the provider's zone (its unix twin wins);
 * - `timestamp`: ISO 8601 with its zone ("2023-07-08T12:52:54.000000Z"), or a wall clock.
 */
export type FieldReading =
  | "identity"
  | "status"
  | "phone"
  | "text"
  | "count"
  | "decimal"
  | "unixTime"
  | "wallClock"
  | "timestamp";

/** One wire field: the report field it fills and how it is read. */
export interface FieldRow {
  /** The report field (camelCase); two rows may fill one (a unix time and its wall-clock twin). */
  readonly field: string;
  readonly read: FieldReading;
  /** Without it the report cannot be identified: refused (400), never null. */
  readonly required?: true;
  /** The provider always sends it (its payload type says so), though a receiver does not rely on it. */
  readonly always?: true;
  /** The composed webhook's {{variables}} that carry it (none: no variable does). */
  readonly variables?: readonly string[];
}

type Table = Readonly<Record<string, FieldRow>>;

/**
 * An SMS delivery report (provider-interface.md 2.4, the verification page's sample, and the
 * `sms:message:status` event), in the documentation's order.
 */
export const DELIVERY_FIELD_TABLE = {
  /** "<uuid>:<n>", e.g. "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1". */
  id: { field: "id", read: "identity", required: true, variables: ["id"] },
  /** Mobile number with country code. */
  mobile: { field: "mobile", read: "phone", always: true, variables: ["mobile"] },
  /** DELIVRD, UNDELIV, EXPIRED, ... (statuses.ts); any value passes. */
  status: { field: "status", read: "status", required: true, variables: ["status"] },
  /** Credits charged, four decimals ("0.2500"). */
  credits: { field: "credits", read: "decimal", variables: ["credits"] },
  /** SMS parts. */
  units: { field: "units", read: "count", variables: ["units"] },
  /** Unix seconds: delivered, request received, sent to the operator. */
  deliv_at: { field: "deliveredAt", read: "unixTime", variables: ["deliv_at"] },
  sent_at: { field: "sentAt", read: "unixTime", variables: ["sent_at"] },
  submit_at: { field: "submittedAt", read: "unixTime", variables: ["submit_at"] },
  /** The same instants as wall-clock "yyyy-mm-dd HH:MM:SS" in the provider's zone. */
  deliv_time: { field: "deliveredAt", read: "wallClock", variables: ["deliv_time"] },
  sent_time: { field: "sentAt", read: "wallClock", variables: ["sent_time"] },
  submit_time: { field: "submittedAt", read: "wallClock", variables: ["submit_time"] },
  /** Undocumented. */
  cid: { field: "cid", read: "text" },
  /** The client's custom id. */
  custom: { field: "custom", read: "text", variables: ["custom"] },
  // The fields below are in the verification page's sample only (field-notes.md); the pull
  // API's records carry `custom1`, `location` and `provider` too.
  /** Two more values of the client's own, e.g. "campaign-3344". */
  custom1: { field: "custom1", read: "text" },
  custom2: { field: "custom2", read: "text" },
  /** Where the number is registered: country ("India"), circle ("Bangalore"), operator ("Jio"). */
  location: { field: "location", read: "text" },
  region: { field: "region", read: "text" },
  provider: { field: "provider", read: "text" },
  /** Their codes: "in", "KA", "RJ". */
  location_code: { field: "locationCode", read: "text" },
  region_code: { field: "regionCode", read: "text" },
  provider_code: { field: "providerCode", read: "text" },
} as const satisfies Table;

/**
 * A call report: an outbound-dial (OBD) report (provider-interface.md 2.5, `v2/reach/webhook.md`,
 * the `voice:message:out` event) or a Click2Call report (`v2/voice/c2c.md`), which adds the
 * fields from `billing` on and has no `mid`.
 */
export const CALL_FIELD_TABLE = {
  /** The webhook the report was pushed for; absent in the samples. */
  webhook_id: { field: "webhookId", read: "identity", variables: ["webhook_id"] },
  /** The DID that placed the call. */
  bridge: { field: "bridge", read: "phone", variables: ["bridge"] },
  /** Who was called first (a Click2Call's agent). */
  from: { field: "from", read: "phone", variables: ["from"] },
  /** Who was called: a number, or a Click2Call's IVR flow (`"flow:220"`, read into `flowId`). */
  to: { field: "to", read: "phone", variables: ["to"] },
  /** Wall-clock "yyyy-mm-dd HH:MM:SS" in the provider's zone. */
  start_at: { field: "startedAt", read: "wallClock", variables: ["start_at"] },
  end_at: { field: "endedAt", read: "wallClock", variables: ["end_at"] },
  /** Seconds of the (first) call, a digit string in the documentation. */
  duration: { field: "duration", read: "count", variables: ["duration"] },
  /** The campaign's message id (OBD); a Click2Call request may carry one. */
  mid: { field: "mid", read: "identity", variables: ["id", "mid"] },
  /** The IVR flow of the campaign. */
  flow_id: { field: "flowId", read: "count", variables: ["flow_id"] },
  /** ANSWER, BUSY, ..., COMPLETED (statuses.ts); any value passes. */
  status: { field: "status", read: "status", required: true, variables: ["status"] },
  /** "OBD" or "C2C". */
  source: { field: "source", read: "text", variables: ["source"] },
  /** Valid for 2 hours after the report (v2/index.md). */
  recording_url: { field: "recordingUrl", read: "text", variables: ["recording_url"] },
  /** Click2Call: seconds of the second call, the one billed. */
  billing: { field: "billing", read: "count", variables: ["billing"] },
  /** Click2Call: the first leg's status ("RECEIVED"). */
  status1: { field: "status1", read: "text", variables: ["status1"] },
  /** Click2Call: the second leg's status ("ANSWER"). */
  status2: { field: "status2", read: "text", variables: ["status2"] },
  /** Click2Call: who hung up, "caller" or "agent". */
  hangup_by: { field: "hangupBy", read: "text", variables: ["hangup_by"] },
  /** Click2Call: when the report was made, unix seconds ("1653455555"). */
  unixtime: { field: "reportedAt", read: "unixTime", variables: ["unixtime"] },
  /** Click2Call: when the report was made, wall-clock. */
  date: { field: "reportedAt", read: "wallClock", variables: ["date"] },
} as const satisfies Table;

/**
 * An opt-out: the `sms:unsubscription` / `voice:unsubscription` events (and the other channels'),
 * pushed through a subscription (`v2/event/index.md`).
 */
export const UNSUBSCRIBE_FIELD_TABLE = {
  /** The opt-out's own id (a uuid, or a number on some channels). */
  id: { field: "id", read: "identity", required: true },
  /** The number that opted out. */
  receiver: { field: "receiver", read: "phone", always: true },
  /** What it opted out of: "sender" (one sender id), "all", "category" (WhatsApp), ... */
  type: { field: "scope", read: "text" },
  /** The sender id (or category) opted out of, or "*" for all. */
  value: { field: "value", read: "text" },
  /** ISO 8601, "2023-07-08T12:52:54.000000Z". */
  created_at: { field: "createdAt", read: "timestamp" },
  /** The provider's text, "Unsubscriber created successfully". */
  status: { field: "status", read: "text" },
} as const satisfies Table;

/** The kinds of body the provider pushes to a webhook. */
export const REPORT_KINDS = ["delivery", "call", "unsubscribe", "event"] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

/** The field table of each kind that has one. */
export const FIELD_TABLES = {
  delivery: DELIVERY_FIELD_TABLE,
  call: CALL_FIELD_TABLE,
  unsubscribe: UNSUBSCRIBE_FIELD_TABLE,
} as const;

export type DeliveryField = keyof typeof DELIVERY_FIELD_TABLE;
export type CallField = keyof typeof CALL_FIELD_TABLE;
export type UnsubscribeField = keyof typeof UNSUBSCRIBE_FIELD_TABLE;

/** The fields of an SMS delivery report as pushed, in the documentation's order. */
export const DELIVERY_FIELDS = Object.keys(DELIVERY_FIELD_TABLE) as readonly DeliveryField[];
/** The fields of a call report as pushed (OBD's, then Click2Call's). */
export const CALL_FIELDS = Object.keys(CALL_FIELD_TABLE) as readonly CallField[];
/** The fields of an opt-out as pushed. */
export const UNSUBSCRIBE_FIELDS = Object.keys(
  UNSUBSCRIBE_FIELD_TABLE,
) as readonly UnsubscribeField[];

/** What a wire value of each reading may be sent as: senders mix numbers and strings (PHP). */
interface WireValue {
  identity: string | number;
  status: string | number;
  phone: number | string;
  text: string | number;
  count: number | string;
  decimal: string | number;
  unixTime: string | number;
  wallClock: string;
  timestamp: string;
}

type Sent<T extends Table> = {
  -readonly [K in keyof T as T[K] extends { always: true } | { required: true }
    ? K
    : never]: WireValue[T[K]["read"]];
};
type Optional<T extends Table> = {
  -readonly [K in keyof T as T[K] extends { always: true } | { required: true } ? never : K]?:
    | WireValue[T[K]["read"]]
    | null
    | undefined;
};

/** A body as senders push it: the table's fields, each as a string or a number as it may come. */
export type PayloadOf<T extends Table> = Flat<Sent<T> & Optional<T>>;
type Flat<T> = { [K in keyof T]: T[K] };
