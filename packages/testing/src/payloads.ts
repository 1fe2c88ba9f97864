import type { CallPayload, DeliveryPayload } from "@reportkit/core";
import {
  type DeliveryExtraField,
  DOCUMENTED_CALL_SAMPLE,
  DOCUMENTED_CLICK2CALL_SAMPLE,
  DOCUMENTED_DELIVERY_SAMPLE,
  type DocumentedCallPayload,
  type DocumentedClick2CallPayload,
  type DocumentedDeliveryPayload,
  PROVIDER_TIME_ZONE,
} from "@reportkit/wire";
import { wallClockText } from "@reportkit/wire/internal";

/**
 * An SMS delivery report as the provider documents it (provider-interface.md 2.4 and its
 * sample): the wall-clock `*_time` strings and no unix `*_at` fields, `credits` a four-place
 * decimal string, `units` a number; the sample's delivery time and custom id included, and
 * the fields the verification page's sample adds (`custom1`, `custom2`, `location`, `region`,
 * `provider`, `location_code`, `region_code`, `provider_code`).
 */
export type DeliveryPayloadSample = DocumentedDeliveryPayload & {
  deliv_time: string;
  custom: string;
} & Required<Pick<DocumentedDeliveryPayload, DeliveryExtraField>>;

/**
 * A call report as the provider documents it (provider-interface.md 2.5 and its sample):
 * `bridge`, `from` and `to` bare JSON numbers, `duration` a digit string, `flow_id` a number,
 * and no `webhook_id`; the sample's recording URL included.
 */
export type CallPayloadSample = DocumentedCallPayload & { recording_url: string };

/**
 * A Click2Call report as `v2/voice/c2c.md` shows it: `source` "C2C", `billing`, `status1`,
 * `status2`, `hangup_by`, the report's time as `date` and `unixtime`; no `mid`, no `webhook_id`.
 */
export type Click2CallPayloadSample = DocumentedClick2CallPayload & { recording_url: string };

/**
 * Overrides for a payload: any wire field (typed as the receiver accepts it) or any other key,
 * as the provider may add fields. A key set to `undefined` is left out of the payload.
 */
export type PayloadOverrides<P> = { [K in keyof P]?: P[K] | undefined } & Record<string, unknown>;

/** The defaults with the overrides applied, typed key by key. */
export type WithOverrides<D, O> = {
  [K in keyof D | keyof O as K extends keyof O
    ? undefined extends O[K]
      ? O[K] extends undefined
        ? never
        : K
      : K
    : K]: K extends keyof O ? Exclude<O[K], undefined> : K extends keyof D ? D[K] : never;
} & {};

/** The defaults with the overrides applied; an override set to `undefined` removes its key. */
export function withOverrides(defaults: object, overrides: object | undefined): object {
  const payload: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(overrides ?? {})) {
    if (value === undefined) delete payload[key];
    else payload[key] = value;
  }
  return payload;
}

/**
 * A fresh SMS delivery report, as the provider pushes it: the documented sample's values with
 * a new message `id` each call (a receiver that deduplicates would otherwise acknowledge the
 * second one without running your handler).
 *
 * @example
 * deliveryPayload(); // { id: "…:1", mobile: "919876543210", status: "DELIVRD", credits: "2.0000", … }
 * deliveryPayload({ status: "UNDELIV", custom: "order-42" });
 * deliveryPayload({ custom1: "campaign-7", provider: "Airtel", region_code: undefined });
 * deliveryPayload({ deliv_at: "1617965871" }); // with a unix field, which the receiver prefers
 * deliveryPayload({ cid: undefined }); // without `cid`
 */
export function deliveryPayload<
  const O extends PayloadOverrides<DeliveryPayload> = Record<never, never>,
>(overrides?: O): WithOverrides<DeliveryPayloadSample, O> {
  const defaults: DeliveryPayloadSample = {
    ...DOCUMENTED_DELIVERY_SAMPLE,
    id: `${crypto.randomUUID()}:1`,
  };
  return withOverrides(defaults, overrides) as WithOverrides<DeliveryPayloadSample, O>;
}

/**
 * A fresh call report, as the provider pushes it: the documented sample's values with a new
 * campaign message id (`mid`) each call.
 *
 * @example
 * callPayload(); // { bridge: 918068281234, from: 918068281235, to: 919876543210, duration: "23", … }
 * callPayload({ status: "BUSY", duration: "0", recording_url: undefined });
 * callPayload({ webhook_id: "2f1c…" }); // the field the documented sample leaves out
 */
export function callPayload<const O extends PayloadOverrides<CallPayload> = Record<never, never>>(
  overrides?: O,
): WithOverrides<CallPayloadSample, O> {
  const mid = crypto.randomUUID();
  const defaults: CallPayloadSample = {
    ...DOCUMENTED_CALL_SAMPLE,
    mid,
    recording_url: `https://recordings.example.com/${mid}.mp3`,
  };
  return withOverrides(defaults, overrides) as WithOverrides<CallPayloadSample, O>;
}

/** The last second a Click2Call payload was dated: each one a second later than the one before. */
let lastSecond = 0;

/**
 * A fresh Click2Call report, as the provider pushes it: the page's sample dated now, each call a
 * second later than the one before (a Click2Call has no `mid`: its numbers and its start tell it
 * apart, so a receiver that deduplicates would otherwise take the second one for the first),
 * `start_at` `duration` seconds before its end, in the provider's zone.
 *
 * @example
 * click2CallPayload(); // { bridge: 918068281234, …, source: "C2C", status: "COMPLETED", status1: "RECEIVED", status2: "ANSWER", … }
 * click2CallPayload({ to: "flow:220" }); // to an IVR flow
 * click2CallPayload({ status: "NOANSWER", status2: "NOANSWER", billing: "0", recording_url: undefined });
 * click2CallPayload({ mid: "order-42" }); // the mid a call request may carry
 */
export function click2CallPayload<
  const O extends PayloadOverrides<CallPayload> = Record<never, never>,
>(overrides?: O): WithOverrides<Click2CallPayloadSample, O> {
  lastSecond = Math.max(Math.floor(Date.now() / 1000), lastSecond + 1);
  const at = (second: number) => wallClockText(new Date(second * 1000), PROVIDER_TIME_ZONE);
  const ended = lastSecond;
  const defaults: Click2CallPayloadSample = {
    ...DOCUMENTED_CLICK2CALL_SAMPLE,
    start_at: at(ended - Number(DOCUMENTED_CLICK2CALL_SAMPLE.duration)),
    end_at: at(ended),
    date: at(ended),
    unixtime: String(ended),
  };
  return withOverrides(defaults, overrides) as WithOverrides<Click2CallPayloadSample, O>;
}
