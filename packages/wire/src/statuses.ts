// The provider's status vocabulary, once (field-notes.md): which statuses are final, and what
// each one means for the message or the call. core puts `final` and `outcome` on every report
// from these tables; @reportkit/postgres's recordStatus and `supersedes` order statuses by them.

/**
 * The SMS delivery statuses reportkit knows, with whether a later report can still follow
 * (`final: false`) and what the status says about the message (`outcome`):
 * - `delivered`: on the handset;
 * - `undelivered`: not delivered, and nothing more will come;
 * - `pending`: on its way, a receipt is still to come;
 * - `unknown`: nobody can say (the operator sent no receipt in time, or the state is unknown).
 *
 * SMPP's ACCEPTD is a final state in the SMPP 3.4 specification (read on the subscriber's behalf
 * by customer care), but aggregators such as this provider report it as "accepted by the
 * operator" and a receipt follows: here it is pending. Every status the field notes list is
 * here; statuses starting with "DLT-" follow {@link DLT_REJECTION}.
 */
export const DELIVERY_STATUS_TABLE = {
  DELIVRD: { final: true, outcome: "delivered", meaning: "Delivered to the handset." },
  UNDELIV: {
    final: true,
    outcome: "undelivered",
    meaning: "The operator could not deliver it (an unreachable or unknown number, say).",
  },
  EXPIRED: {
    final: true,
    outcome: "undelivered",
    meaning: "Its validity period ended before delivery (the handset stayed off or out of reach).",
  },
  REJECTD: {
    final: true,
    outcome: "undelivered",
    meaning: "Rejected by the operator or the SMS centre (content, sender or route).",
  },
  FAILED: {
    final: true,
    outcome: "undelivered",
    meaning: "Sending failed at the provider or the operator.",
  },
  BARRED: {
    final: true,
    outcome: "undelivered",
    meaning: "The number is barred from receiving it (by the operator or the subscriber).",
  },
  BLACKLST: {
    final: true,
    outcome: "undelivered",
    meaning: "The number is on a blacklist (the provider's, the operator's or the account's).",
  },
  "INVALID-SUB": {
    final: true,
    outcome: "undelivered",
    meaning: "The number is not a valid subscriber.",
  },
  "MOB-OFF": {
    final: true,
    outcome: "undelivered",
    meaning: "The handset stayed switched off until the operator gave up.",
  },
  "NET-ERR": {
    final: true,
    outcome: "undelivered",
    meaning: "A network error at the operator.",
  },
  "REJ-MULTIPART": {
    final: true,
    outcome: "undelivered",
    meaning: "Not every part of a multipart message was delivered.",
  },
  DNDNUMB: {
    final: true,
    outcome: "undelivered",
    meaning: "The number is on India's Do-Not-Disturb registry, which the message may not reach.",
  },
  DELETED: {
    final: true,
    outcome: "undelivered",
    meaning: "Deleted at the SMS centre before it was delivered.",
  },
  "TIMEOUT-DLR": {
    final: true,
    outcome: "unknown",
    meaning: "No receipt came from the operator in time; the provider stopped waiting.",
  },
  UNKNOWN: {
    final: true,
    outcome: "unknown",
    meaning: "The SMS centre reports the message's state as unknown; nothing follows it.",
  },
  "AWAITING-DLR": {
    final: false,
    outcome: "pending",
    meaning: "Sent to the operator; its receipt has not come yet.",
  },
  ENROUTE: {
    final: false,
    outcome: "pending",
    meaning: "On its way to the handset; a receipt follows.",
  },
  ACCEPTD: {
    final: false,
    outcome: "pending",
    meaning: "Accepted by the operator; a receipt follows.",
  },
} as const satisfies Record<string, StatusRow>;

/**
 * Every status starting with "DLT-" (any case): refused under India's DLT rules (the template,
 * the header or the entity is not registered, or the text does not match the template).
 */
export const DLT_REJECTION = {
  prefix: "DLT-",
  final: true,
  outcome: "undelivered",
  meaning:
    "Refused under India's DLT rules: template, header or entity not registered, or the text does not match the template.",
} as const satisfies StatusRow & { prefix: string };

/**
 * The call statuses reportkit knows (Asterisk's DIALSTATUS). A call report is pushed once the
 * call has ended, so every one of them is final.
 */
export const CALL_STATUS_TABLE = {
  ANSWER: { final: true, outcome: "answered", meaning: "The callee answered." },
  BUSY: { final: true, outcome: "unanswered", meaning: "The line was busy." },
  NOANSWER: {
    final: true,
    outcome: "unanswered",
    meaning: "It rang until the dial timeout; nobody answered.",
  },
  CANCEL: {
    final: true,
    outcome: "unanswered",
    meaning: "The call was cancelled while it rang.",
  },
  CONGESTION: {
    final: true,
    outcome: "unanswered",
    meaning: "The network was congested, or the number could not be reached.",
  },
  CHANUNAVAIL: {
    final: true,
    outcome: "unanswered",
    meaning: "No channel to the callee was available (unreachable or not in service).",
  },
} as const satisfies Record<string, StatusRow>;

/**
 * A status neither table knows: still taken (never refused), as not final with outcome
 * `unknown`; the report carries a warning saying so.
 */
export const UNRECOGNIZED_STATUS = {
  final: false,
  outcome: "unknown",
  meaning: "Not in reportkit's table of statuses: taken as not final, outcome unknown.",
} as const satisfies StatusRow;

interface StatusRow {
  readonly final: boolean;
  readonly outcome: string;
  readonly meaning: string;
}

/** Why a message was not delivered: the class of its status (docs/statuses.md). */
export const DELIVERY_REASONS = [
  "dlt",
  "handset",
  "network",
  "recipient",
  "account",
  "content",
  "expired",
  "unknown",
] as const;
export type DeliveryReason = (typeof DELIVERY_REASONS)[number];

const REASONS: Readonly<Record<string, DeliveryReason>> = {
  UNDELIV: "network",
  EXPIRED: "expired",
  REJECTD: "network",
  FAILED: "network",
  BARRED: "handset",
  BLACKLST: "recipient",
  "INVALID-SUB": "handset",
  "MOB-OFF": "handset",
  "NET-ERR": "network",
  "REJ-MULTIPART": "network",
  DNDNUMB: "recipient",
  DELETED: "network",
  "TIMEOUT-DLR": "unknown",
  UNKNOWN: "unknown",
};
const TRANSIENT = new Set([
  "EXPIRED",
  "FAILED",
  "MOB-OFF",
  "NET-ERR",
  "REJ-MULTIPART",
  "BUSY",
  "NOANSWER",
  "CONGESTION",
  "CHANUNAVAIL",
]);

type Outcomes<Table> = Table[keyof Table] extends { outcome: infer O } ? O : never;

/** What a delivery status says about the message, typed from the table. */
export type DeliveryOutcome =
  | Outcomes<typeof DELIVERY_STATUS_TABLE>
  | typeof DLT_REJECTION.outcome
  | typeof UNRECOGNIZED_STATUS.outcome;
/** What a call status says about the call, typed from the table (`unknown`: not in it). */
export type CallOutcome = Outcomes<typeof CALL_STATUS_TABLE> | typeof UNRECOGNIZED_STATUS.outcome;

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

/** A status looked up in its table. */
export interface StatusClass<Outcome extends string> {
  /** False for a status the table does not know (then `final: false`, outcome `unknown`). */
  readonly known: boolean;
  /** True when nothing should follow it: the last word on the message or the call. */
  readonly final: boolean;
  readonly outcome: Outcome;
  /** One line saying what the status means. */
  readonly meaning: string;
  /** Why the message was not delivered; null when it was, or is still on its way, and for calls. */
  readonly reason: DeliveryReason | null;
  /** Whether sending the same message (or calling) again later may succeed. */
  readonly transient: boolean;
}

/**
 * The status as the tables key it: the provider writes upper case; any case is accepted
 * (surrounding spaces too). The report keeps the status as it was sent.
 */
export function statusKey(status: string): string {
  return status.trim().toUpperCase();
}

// Each row as the shared, frozen answer of a lookup: a report's status is classified once per
// report, without building anything.
function classes<Outcome extends string>(
  table: Readonly<Record<string, { final: boolean; outcome: Outcome; meaning: string }>>,
  delivery: boolean,
): ReadonlyMap<string, StatusClass<Outcome>> {
  return new Map(
    Object.entries(table).map(([status, row]) => [
      status,
      Object.freeze({
        known: true,
        ...row,
        reason: delivery ? (REASONS[status] ?? null) : null,
        transient: TRANSIENT.has(status),
      }),
    ]),
  );
}

const DELIVERY_CLASSES = classes<DeliveryOutcome>(DELIVERY_STATUS_TABLE, true);
const CALL_CLASSES = classes<CallOutcome>(CALL_STATUS_TABLE, false);
const DLT_CLASS: StatusClass<DeliveryOutcome> = Object.freeze({
  known: true,
  final: DLT_REJECTION.final,
  outcome: DLT_REJECTION.outcome,
  meaning: DLT_REJECTION.meaning,
  reason: "dlt",
  transient: false,
});
const UNRECOGNIZED_CLASS: StatusClass<typeof UNRECOGNIZED_STATUS.outcome> = Object.freeze({
  known: false,
  ...UNRECOGNIZED_STATUS,
  reason: "unknown",
  transient: false,
});

/**
 * What a delivery status says: final or not, and the message's outcome. A status the table does
 * not know is not final, outcome `unknown` (and `known: false`): never refused.
 *
 * @example
 * classifyDeliveryStatus("delivrd"); // { known: true, final: true, outcome: "delivered", … }
 * classifyDeliveryStatus("DLT-TEMPLATE-MISMATCH").outcome; // "undelivered"
 */
export function classifyDeliveryStatus(status: string): StatusClass<DeliveryOutcome> {
  // The provider writes upper case: the status as sent is the key, mostly.
  const found = DELIVERY_CLASSES.get(status);
  if (found !== undefined) return found;
  const key = statusKey(status);
  const again = DELIVERY_CLASSES.get(key);
  if (again !== undefined) return again;
  if (key.length > DLT_REJECTION.prefix.length && key.startsWith(DLT_REJECTION.prefix)) {
    return DLT_CLASS;
  }
  return UNRECOGNIZED_CLASS;
}

/**
 * What a call status says: every status of the table is final (a call report is pushed once
 * the call has ended); one it does not know is not final, outcome `unknown`.
 */
export function classifyCallStatus(status: string): StatusClass<CallOutcome> {
  return CALL_CLASSES.get(status) ?? CALL_CLASSES.get(statusKey(status)) ?? UNRECOGNIZED_CLASS;
}
