// The provider's status vocabulary, once: the tables (delivery-status-table.ts,
// call-status-table.ts) looked up. core puts a row's `final`, `outcome`, `reason` and
// `transient` on every report; @reportkit/postgres's recordStatus, `supersedes` and the client's
// reconcile read finality from here.
import { CALL_STATUS_TABLE } from "./call-status-table.js";
import { DELIVERY_STATUS_TABLE, DLT_REJECTION } from "./delivery-status-table.js";
import type { StatusRow } from "./status-row.js";

/**
 * A status neither table knows: still taken (never refused), as not final with outcome
 * `unknown`, reason `unknown` (a call has no reason: null), not transient; the report carries a
 * warning saying so.
 */
export const UNRECOGNIZED_STATUS = {
  final: false,
  outcome: "unknown",
  reason: "unknown",
  transient: false,
  meaning: "Not in reportkit's table of statuses: taken as not final, outcome unknown.",
  codes: [],
} as const satisfies StatusRow;

type Outcomes<Table> = Table[keyof Table] extends { outcome: infer O } ? O : never;
type Reasons<Table> = Table[keyof Table] extends { reason: infer R } ? R : never;

/** What a delivery status says about the message, typed from the table. */
export type DeliveryOutcome =
  | Outcomes<typeof DELIVERY_STATUS_TABLE>
  | typeof DLT_REJECTION.outcome
  | typeof UNRECOGNIZED_STATUS.outcome;
/** What a call status says about the call, typed from the table (`unknown`: not in it). */
export type CallOutcome = Outcomes<typeof CALL_STATUS_TABLE> | typeof UNRECOGNIZED_STATUS.outcome;
/**
 * Why a message was not delivered, as a class, typed from the table: `dlt`, `handset`,
 * `network`, `recipient`, `account`, `content`, `expired`, `unknown` (each explained on
 * {@link DELIVERY_STATUS_TABLE}). A report's `reason` is null when the status is no failure.
 */
export type DeliveryReason =
  | Exclude<Reasons<typeof DELIVERY_STATUS_TABLE>, null>
  | typeof DLT_REJECTION.reason
  | typeof UNRECOGNIZED_STATUS.reason;

/** Every delivery outcome (a type test checks it against {@link DeliveryOutcome}). */
export const DELIVERY_OUTCOMES = [
  "delivered",
  "undelivered",
  "pending",
  "unknown",
] as const satisfies readonly DeliveryOutcome[];
/** Every call outcome (a type test checks it against {@link CallOutcome}). */
export const CALL_OUTCOMES = [
  "answered",
  "unanswered",
  "unknown",
] as const satisfies readonly CallOutcome[];
/**
 * Every reason class, in the table's order (a type test checks it against
 * {@link DeliveryReason}; what each means is on {@link DELIVERY_STATUS_TABLE}).
 */
export const DELIVERY_REASONS = [
  "dlt",
  "handset",
  "network",
  "recipient",
  "account",
  "content",
  "expired",
  "unknown",
] as const satisfies readonly DeliveryReason[];

/** The delivery statuses of the table, in its order (DLT-* rejections are a prefix rule). */
export const DELIVERY_STATUSES = Object.keys(DELIVERY_STATUS_TABLE) as readonly Extract<
  keyof typeof DELIVERY_STATUS_TABLE,
  string
>[];
/** The call statuses of the table, in its order. */
export const CALL_STATUSES = Object.keys(CALL_STATUS_TABLE) as readonly Extract<
  keyof typeof CALL_STATUS_TABLE,
  string
>[];

// `string & {}` keeps editor completion for the known values while accepting any string.
/** A delivery report's status as sent: the known ones for completion, any other string passes. */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number] | `DLT-${string}` | (string & {});
/** A call report's status as sent: the known ones for completion, any other string passes. */
export type CallStatus = (typeof CALL_STATUSES)[number] | (string & {});

/** A status looked up in its table: its row, and whether the table knows it. */
export interface StatusClass<
  Outcome extends string,
  Reason extends string | null = DeliveryReason | null,
> extends StatusRow<Outcome, Reason> {
  /**
   * False for a status the table does not know (then `final: false`, outcome `unknown`, reason
   * `unknown` for a delivery and null for a call, not transient).
   */
  readonly known: boolean;
}

/** A delivery status looked up: what `classifyDeliveryStatus` gives. */
export type DeliveryStatusClass = StatusClass<DeliveryOutcome, DeliveryReason | null>;
/** A call status looked up: what `classifyCallStatus` gives (a call has no reason). */
export type CallStatusClass = StatusClass<CallOutcome, null>;

/**
 * The status as the tables key it: the provider writes upper case; any case is accepted
 * (surrounding spaces too). The report keeps the status as it was sent.
 */
export function statusKey(status: string): string {
  return status.trim().toUpperCase();
}

// Each row as the shared, frozen answer of a lookup (its codes too): a report's status is
// classified once per report, without building anything.
function frozenClass<Outcome extends string, Reason extends string | null>(
  known: boolean,
  row: StatusRow<Outcome, Reason>,
): StatusClass<Outcome, Reason> {
  const { final, outcome, reason, transient, meaning } = row;
  const codes = Object.freeze(row.codes.map((code) => Object.freeze({ ...code })));
  return Object.freeze({ known, final, outcome, reason, transient, meaning, codes });
}

function classes<Outcome extends string, Reason extends string | null>(
  table: Readonly<Record<string, StatusRow<Outcome, Reason>>>,
): ReadonlyMap<string, StatusClass<Outcome, Reason>> {
  return new Map(Object.entries(table).map(([status, row]) => [status, frozenClass(true, row)]));
}

const DELIVERY_CLASSES = classes<DeliveryOutcome, DeliveryReason | null>(DELIVERY_STATUS_TABLE);
const CALL_CLASSES = classes<CallOutcome, null>(CALL_STATUS_TABLE);
const DLT_CLASS: DeliveryStatusClass = frozenClass(true, DLT_REJECTION);
const UNRECOGNIZED_DELIVERY: DeliveryStatusClass = frozenClass(false, UNRECOGNIZED_STATUS);
const UNRECOGNIZED_CALL: CallStatusClass = frozenClass(false, {
  ...UNRECOGNIZED_STATUS,
  reason: null,
});

/**
 * What a delivery status says, in one lookup: final or not, the message's outcome, why it failed
 * (`reason`), whether a resend may succeed (`transient`), its meaning and the provider's codes.
 * A status the table does not know is not final, outcome and reason `unknown`, not transient
 * (and `known: false`): never refused.
 *
 * @example
 * classifyDeliveryStatus("delivrd"); // { known: true, final: true, outcome: "delivered", reason: null, … }
 * classifyDeliveryStatus("HANDSET-BUSY"); // { …, outcome: "undelivered", reason: "handset", transient: true, … }
 * classifyDeliveryStatus("DLT-TEMPLATE-MISMATCH").reason; // "dlt"
 */
export function classifyDeliveryStatus(status: string): DeliveryStatusClass {
  // The provider writes upper case: the status as sent is the key, mostly.
  const found = DELIVERY_CLASSES.get(status);
  if (found !== undefined) return found;
  const key = statusKey(status);
  const again = DELIVERY_CLASSES.get(key);
  if (again !== undefined) return again;
  if (key.length > DLT_REJECTION.prefix.length && key.startsWith(DLT_REJECTION.prefix)) {
    return DLT_CLASS;
  }
  return UNRECOGNIZED_DELIVERY;
}

/**
 * What a call status says: every status of the table is final (a call report is pushed once
 * the call has ended); one it does not know is not final, outcome `unknown`. A call has no
 * reason (null); `transient` says whether calling again later may reach the callee.
 */
export function classifyCallStatus(status: string): CallStatusClass {
  return CALL_CLASSES.get(status) ?? CALL_CLASSES.get(statusKey(status)) ?? UNRECOGNIZED_CALL;
}
