import type {
  CALL_FIELD_TABLE,
  DELIVERY_FIELD_TABLE,
  PayloadOf,
  UNSUBSCRIBE_FIELD_TABLE,
} from "./report-fields.js";

/** The two kinds of report a composed template can carry: it states which. */
export type ReportType = "delivery" | "call";

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
 * An SMS delivery report as senders really push it (DELIVERY_FIELD_TABLE has each field). The
 * documentation types every field but `units` as a string; senders (PHP) mix numbers and
 * strings, its own sample leaves the unix fields out, and a composed webhook fills an empty
 * string for a value it does not have (field-notes.md): so only `id`, `mobile` and `status` are
 * always there, and each takes a string or a number. Wall-clock times are strings.
 */
export type DeliveryPayload = PayloadOf<typeof DELIVERY_FIELD_TABLE>;

/**
 * A call report as senders really push it (CALL_FIELD_TABLE): in the documentation's samples
 * `bridge`, `from`, `to` and `flow_id` are JSON numbers, `duration` a digit string and
 * `webhook_id` absent (field-notes.md); any of them may come the other way. Only `status` is
 * always there.
 */
export type CallPayload = PayloadOf<typeof CALL_FIELD_TABLE>;

/** An opt-out as the provider pushes it (UNSUBSCRIBE_FIELD_TABLE). */
export type UnsubscribePayload = PayloadOf<typeof UNSUBSCRIBE_FIELD_TABLE>;

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

/**
 * A Click2Call report in the shape of `v2/voice/c2c.md`'s sample: `bridge`, `from` and `to` bare
 * JSON numbers (`to` may be an IVR flow, `"flow:220"`), `source` "C2C", the report's own time as
 * `date` and `unixtime`, `duration` (the first call) and `billing` (the second) digit strings,
 * each leg's status, who hung up; no `mid` (a call request may carry one) and no `webhook_id`.
 * What the sandbox pushes for a Click2Call and @reportkit/testing's `click2CallPayload()` builds.
 */
export interface DocumentedClick2CallPayload extends CallPayload {
  bridge: number;
  from: number;
  to: number | string;
  source: string;
  start_at: string;
  end_at: string;
  date: string;
  unixtime: string;
  duration: string;
  billing: string;
  status: string;
  status1: string;
  status2: string;
  recording_url?: string;
  hangup_by: string;
  mid?: string;
}

/** The Click2Call report of `v2/voice/c2c.md`'s sample, as valid JSON would carry it. */
export const DOCUMENTED_CLICK2CALL_SAMPLE: Readonly<
  DocumentedClick2CallPayload & { recording_url: string }
> = Object.freeze({
  bridge: 918068281234,
  from: 918919521234,
  to: 918867131234,
  source: "C2C",
  start_at: "2021-04-09 16:27:39",
  end_at: "2021-04-09 16:27:55",
  date: "2021-04-09 16:27:55",
  unixtime: "1617965875",
  duration: "23",
  billing: "23",
  status: "COMPLETED",
  status1: "RECEIVED",
  status2: "ANSWER",
  recording_url: "https://recordings.example.com/c2c-5f2b1a9c.mp3",
  hangup_by: "caller",
});

/**
 * An opt-out in the shape of `v2/event/index.md`'s samples (`sms:unsubscription`,
 * `voice:unsubscription`, and the other channels'), pushed bare through a subscription: its id
 * (a uuid; a number on WhatsApp, RCS and Viber), the number that opted out, what it opted out
 * of (`type` "sender" with the sender id as `value`, or "all" with "*"), an ISO time and the
 * provider's text.
 */
export interface DocumentedUnsubscribePayload extends UnsubscribePayload {
  id: string | number;
  receiver: string;
  type: string;
  value: string;
  created_at: string;
  status: string;
}

/** The `sms:unsubscription` sample of `v2/event/index.md`, as valid JSON would carry it. */
export const DOCUMENTED_UNSUBSCRIBE_SAMPLE: Readonly<
  DocumentedUnsubscribePayload & { id: string }
> = Object.freeze({
  id: "d105a1ef-6728-4563-8b85-7f5356c8a123",
  receiver: "917002088123",
  type: "sender",
  value: "Demo12",
  created_at: "2023-07-08T12:52:54.000000Z",
  status: "Unsubscriber created successfully",
});
