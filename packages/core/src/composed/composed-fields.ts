import type { CallField, DeliveryField } from "@reportkit/wire";
import type { CallReport, DeliveryReport } from "../report/schemas.js";

// Which report field each wire field of a composed template fills, and which of them may stay
// empty: the facts the handler types (composed-types.ts), the compiler (compile-template.ts)
// and the reader (read-composed.ts) all follow.

/** The report field each wire field of a delivery report becomes. */
export const DELIVERY_REPORT_FIELDS = {
  id: "id",
  mobile: "mobile",
  status: "status",
  credits: "credits",
  units: "units",
  deliv_at: "deliveredAt",
  sent_at: "sentAt",
  submit_at: "submittedAt",
  deliv_time: "deliveredAt",
  sent_time: "sentAt",
  submit_time: "submittedAt",
  cid: "cid",
  custom: "custom",
  // No composed variable carries these (the provider's variable list stops at custom): a
  // composed report has them null.
  custom1: "custom1",
  custom2: "custom2",
  location: "location",
  region: "region",
  provider: "provider",
  location_code: "locationCode",
  region_code: "regionCode",
  provider_code: "providerCode",
} as const satisfies Record<DeliveryField, keyof DeliveryReport>;

/** The report field each wire field of a call report becomes. */
export const CALL_REPORT_FIELDS = {
  webhook_id: "webhookId",
  bridge: "bridge",
  from: "from",
  to: "to",
  start_at: "startedAt",
  end_at: "endedAt",
  duration: "duration",
  mid: "mid",
  flow_id: "flowId",
  status: "status",
  source: "source",
  recording_url: "recordingUrl",
} as const satisfies Record<CallField, keyof CallReport>;

/**
 * Numbers and times a template may carry and still leave empty: the provider has no delivery
 * time for an SMS that was never delivered, no start for a call never answered. Refusing such
 * a report would lose it, so these stay nullable even when the template promises them.
 */
export const MAY_BE_EMPTY = [
  "credits",
  "units",
  "deliveredAt",
  "sentAt",
  "submittedAt",
  "startedAt",
  "endedAt",
  "duration",
  "flowId",
] as const;
export const MAY_BE_EMPTY_FIELDS: ReadonlySet<string> = new Set(MAY_BE_EMPTY);
