// Every SMS delivery status the provider documents, once: `v2/sms/smpp.md`'s DLR table (each
// status with its codes and the provider's description of each), the DLT names of
// `help/smart-delivery.md`, and those the field notes and SMPP practice add. core puts a row's
// final, outcome, reason and transient on every report; recordStatus, supersedes and reconcile
// read finality from here; docs/statuses.md is generated from it.
import type { StatusRow } from "./status-row.js";

/**
 * The SMS delivery statuses reportkit knows, one row each:
 * - `final`: nothing should follow it. Every status of `v2/sms/smpp.md`'s table is final for the
 *   message ("intermediate and/or final depending on the route" are the pending ones below).
 * - `outcome`: `delivered` (on the handset); `undelivered` (not delivered, and nothing more will
 *   come); `pending` (on its way, a receipt is still to come); `unknown` (nobody can say).
 * - `reason`: why it failed, one class (null for `delivered` and `pending`):
 *   - `dlt`: India's DLT registration: the template, the header (sender id) or the entity is not
 *     registered, not allotted to the account, inactive or blacklisted, or the text does not
 *     match the template. Fix the registration or the template; the same message fails again.
 *   - `handset`: the number or the handset: no such subscriber, absent, switched off, busy, its
 *     memory full, it cannot take SMS, SMS to it is barred, its number series is blocked.
 *   - `network`: the operator's network or the platform failed or refused it.
 *   - `recipient`: the recipient's choice or the rules on reaching them: India's DND registry, a
 *     blocklist, no opt-in, an opt-out, outside promotional hours.
 *   - `account`: the sending account: credits, provisioning, service type, schedule, a country
 *     it may not send to, its sending limit.
 *   - `content`: the text itself: judged spam, or the same content sent already.
 *   - `expired`: its validity period ran out before the handset could be reached.
 *   - `unknown`: nobody can say why (no receipt came in time, the SMS centre says unknown, or a
 *     status reportkit does not know).
 * - `transient`: whether sending the same message again later may succeed (a switched-off or busy
 *   handset, a full memory, an absent subscriber, a platform error, credits after a top-up,
 *   promotional hours: yes; an invalid number, a DLT rejection, DND, an opt-out: no).
 * - `meaning`: one sentence, reportkit's; `codes`: the provider's codes with its own
 *   description of each, as `v2/sms/smpp.md` writes them (empty for a status it does not list).
 *
 * SMPP's ACCEPTD is a final state in the SMPP 3.4 specification (read on the subscriber's behalf
 * by customer care), but aggregators such as this provider report it as "accepted by the
 * operator" and a receipt follows: here it is pending. Statuses starting with "DLT-" that are
 * not rows follow {@link DLT_REJECTION}. Rows are grouped by reason, in the order of their codes.
 */
export const DELIVERY_STATUS_TABLE = {
  DELIVRD: {
    final: true,
    outcome: "delivered",
    reason: null,
    transient: false,
    meaning: "Delivered to the handset.",
    codes: [{ code: "000", description: "Delivered to SIM." }],
  },

  // Pending: a receipt follows (the field notes and SMPP practice).
  "AWAITING-DLR": {
    final: false,
    outcome: "pending",
    reason: null,
    transient: false,
    meaning: "Sent to the operator; its receipt has not come yet.",
    codes: [],
  },
  ENROUTE: {
    final: false,
    outcome: "pending",
    reason: null,
    transient: false,
    meaning: "On its way to the handset; a receipt follows.",
    codes: [],
  },
  ACCEPTD: {
    final: false,
    outcome: "pending",
    reason: null,
    transient: false,
    meaning: "Accepted by the operator; a receipt follows.",
    codes: [],
  },

  // dlt: India's DLT registration (smpp.md, then help/smart-delivery.md's DLT names).
  "SNDR-BLOCK": {
    final: true,
    outcome: "undelivered",
    reason: "dlt",
    transient: false,
    meaning: "The sender id (the header) is blocked.",
    codes: [{ code: "451", description: "Sender Id been blocked" }],
  },
  "TEMPLATE-NOT-FOUND": {
    final: true,
    outcome: "undelivered",
    reason: "dlt",
    transient: false,
    meaning: "The text matches none of the account's registered templates.",
    codes: [{ code: "452", description: "No matching templates" }],
  },
  "INV-TEMPLATE": {
    final: true,
    outcome: "undelivered",
    reason: "dlt",
    transient: false,
    meaning: "The template is not allotted to the sending account.",
    codes: [{ code: "453", description: "Message rejected as template not allotted for ESME" }],
  },
  "INV-SENDER": {
    final: true,
    outcome: "undelivered",
    reason: "dlt",
    transient: false,
    meaning: "The sender id (the header) is not allotted to the sending account.",
    codes: [{ code: "454", description: "Message rejected as sender id not allotted for ESME" }],
  },
  "DLT-REJECTED": {
    final: true,
    outcome: "undelivered",
    reason: "dlt",
    transient: false,
    meaning: "Refused under DLT: the sender id or the template is not valid.",
    codes: [{ code: "777", description: "Invalid Sender-Id or Invalid Template" }],
  },
  "DLT-INV-TMID": {
    final: true,
    outcome: "undelivered",
    reason: "dlt",
    transient: false,
    meaning: "The DLT telemarketer id is not valid.",
    codes: [{ code: "780", description: "Invalid DLT telemarketer Id" }],
  },
  "DLT-INV-ENTITY": {
    final: true,
    outcome: "undelivered",
    reason: "dlt",
    transient: false,
    meaning: "The DLT entity id (the principal entity's) is not valid.",
    codes: [{ code: "781", description: "Invalid Entity DLT Id" }],
  },
  "DLT-INV-TM-ID": {
    final: true,
    outcome: "undelivered",
    reason: "dlt",
    transient: false,
    meaning: "The DLT template id is not valid.",
    codes: [{ code: "782", description: "Invalid DLT Template Id" }],
  },
  "DLT-TM-VAR-EXECEED": {
    final: true,
    outcome: "undelivered",
    reason: "dlt",
    transient: false,
    meaning: "A variable of the template is longer than the 30 characters DLT allows.",
    codes: [{ code: "783", description: "Template variable exceeded 30 chars" }],
  },
  "DLT-ENTITY-NOT-FOUND": {
    final: true,
    outcome: "undelivered",
    reason: "dlt",
    transient: false,
    meaning: "The DLT entity id is not registered.",
    codes: [{ code: "784", description: "Entity Id not found" }],
  },
  "DLT-TM-BLACKLST": {
    final: true,
    outcome: "undelivered",
    reason: "dlt",
    transient: false,
    meaning: "The DLT template id is blacklisted.",
    codes: [{ code: "785", description: "Template Id blacklisted" }],
  },
  "DLT-ENTITY-BLACKLST": {
    final: true,
    outcome: "undelivered",
    reason: "dlt",
    transient: false,
    meaning: "The DLT entity id is blacklisted.",
    codes: [{ code: "786", description: "Entity Id blacklisted" }],
  },
  "DLT-HEADER-INACTIVE": {
    final: true,
    outcome: "undelivered",
    reason: "dlt",
    transient: false,
    meaning: "The sender id (the header) is inactive on DLT.",
    codes: [{ code: "787", description: "Sender Inactive" }],
  },
  "DLT-TM-INACTIVE": {
    final: true,
    outcome: "undelivered",
    reason: "dlt",
    transient: false,
    meaning: "The template is inactive on DLT.",
    codes: [{ code: "788", description: "Template is Inactive" }],
  },
  "DLT-SENDER-NOT-REG-TM": {
    final: true,
    outcome: "undelivered",
    reason: "dlt",
    transient: false,
    meaning: "The sender id is not registered for the template on DLT.",
    codes: [{ code: "789", description: "Sender not registered for template" }],
  },
  "INV-PEID": {
    final: true,
    outcome: "undelivered",
    reason: "dlt",
    transient: false,
    meaning: "The principal entity id (PE ID) sent with the message is not valid on DLT.",
    codes: [],
  },
  "INV-TMID": {
    final: true,
    outcome: "undelivered",
    reason: "dlt",
    transient: false,
    meaning: "The telemarketer id (TM ID) sent with the message is not valid on DLT.",
    codes: [],
  },
  "INV-ENTITY": {
    final: true,
    outcome: "undelivered",
    reason: "dlt",
    transient: false,
    meaning: "The entity id sent with the message is not valid on DLT.",
    codes: [],
  },

  // handset: the number or the handset.
  "INVALID-SUB": {
    final: true,
    outcome: "undelivered",
    reason: "handset",
    transient: false,
    meaning: "The number is not a valid subscriber.",
    codes: [
      { code: "001", description: "Unidentified subscriber." },
      { code: "002", description: "Illegal subscriber" },
      { code: "015", description: "Unidentified subscriber" },
    ],
  },
  "ABSENT-SUB": {
    final: true,
    outcome: "undelivered",
    reason: "handset",
    transient: true,
    meaning: "The subscriber could not be reached (out of coverage, or not on the network).",
    codes: [
      { code: "003", description: "Unidentified subscriber." },
      { code: "010", description: "Absent subscriber" },
    ],
  },
  "HANDSET-ERR": {
    final: true,
    outcome: "undelivered",
    reason: "handset",
    transient: false,
    meaning: "The handset cannot take the SMS (not allowed on the network, or no SMS support).",
    codes: [
      { code: "004", description: "Illegal equipment" },
      { code: "006", description: "MS does not support SMS" },
      { code: "007", description: "MS receiving error" },
    ],
  },
  BARRED: {
    final: true,
    outcome: "undelivered",
    reason: "handset",
    transient: false,
    meaning: "SMS to the number is barred (by the operator, or a closed user group).",
    codes: [
      { code: "005", description: "SMS is prohibited" },
      { code: "020", description: "CUG reject" },
    ],
  },
  MEMEXEC: {
    final: true,
    outcome: "undelivered",
    reason: "handset",
    transient: true,
    meaning: "The handset's memory is full.",
    codes: [{ code: "009", description: "Handset memory full" }],
  },
  "MOB-OFF": {
    final: true,
    outcome: "undelivered",
    reason: "handset",
    transient: true,
    meaning: "The handset stayed switched off until the operator gave up.",
    codes: [{ code: "013", description: "Mobile handset switched off" }],
  },
  "HANDSET-BUSY": {
    final: true,
    outcome: "undelivered",
    reason: "handset",
    transient: true,
    meaning: "The subscriber was busy.",
    codes: [{ code: "016", description: "Subscriber is busy." }],
  },
  "SERIES-BLK": {
    final: true,
    outcome: "undelivered",
    reason: "handset",
    transient: false,
    meaning: "The number's series (its range of numbers) is blocked.",
    codes: [{ code: "018", description: "Series blocked" }],
  },
  "SERIES-BLOCK": {
    final: true,
    outcome: "undelivered",
    reason: "handset",
    transient: false,
    meaning: "The number's series (its range of numbers) is blocked, for a time or for good.",
    codes: [{ code: "400", description: "Series has been temporary / permanently blocked." }],
  },
  "INV-NUMBER": {
    final: true,
    outcome: "undelivered",
    reason: "handset",
    transient: false,
    meaning: "The destination number is not valid.",
    codes: [{ code: "404", description: "Invalid destination number" }],
  },

  // network: the operator's network or the platform.
  "NET-ERR": {
    final: true,
    outcome: "undelivered",
    reason: "network",
    transient: true,
    meaning: "A network error at the operator (its switch or gateway, or a facility it lacks).",
    codes: [
      { code: "008", description: "Facility not supported." },
      { code: "012", description: "Gateway mobile switching error" },
      { code: "017", description: "Resource cannot be used at GMSC level" },
      { code: "019", description: "Submission error or invalid input data" },
    ],
  },
  FAILED: {
    final: true,
    outcome: "undelivered",
    reason: "network",
    transient: true,
    meaning:
      "Sending failed at the SMS centre or the operator (a system failure, a roaming limit).",
    codes: [
      { code: "011", description: "SMSC system failure" },
      { code: "014", description: "SMS undelivered due to roaming limitation" },
      { code: "045", description: "Unknown Error" },
      { code: "462", description: "Unknown Error" },
    ],
  },
  UNDELIV: {
    final: true,
    outcome: "undelivered",
    reason: "network",
    transient: false,
    meaning: "The operator could not deliver it, and gave no cause.",
    codes: [
      { code: "034", description: "Unknown Error" },
      { code: "099", description: "Unknown Error" },
      { code: "461", description: "Unknown Error" },
    ],
  },
  "SERVER-ERR": {
    final: true,
    outcome: "undelivered",
    reason: "network",
    transient: true,
    meaning: "An error on the platform's servers (its SMPP client, or a cause not given).",
    codes: [
      { code: "403", description: "Unknown Error" },
      { code: "405", description: "ESME client error" },
      { code: "406", description: "ESME client error" },
      { code: "430", description: "Unknown Error" },
      { code: "431", description: "Unknown Error" },
      { code: "432", description: "Unknown Error" },
      { code: "433", description: "Unknown Error" },
    ],
  },
  REJECTED: {
    final: true,
    outcome: "undelivered",
    reason: "network",
    transient: false,
    meaning: "Rejected by the platform or the operator, with no cause given.",
    codes: [{ code: "458", description: "Unknown Error" }],
  },
  "REJ-MULTIPART": {
    final: true,
    outcome: "undelivered",
    reason: "network",
    transient: true,
    meaning: "Not every part of a multipart message was delivered.",
    codes: [{ code: "778", description: "All message parts are not delivered to handset" }],
  },
  REJECTD: {
    final: true,
    outcome: "undelivered",
    reason: "network",
    transient: false,
    meaning: "Rejected by the operator or the SMS centre (content, sender or route).",
    codes: [],
  },
  DELETED: {
    final: true,
    outcome: "undelivered",
    reason: "network",
    transient: false,
    meaning: "Deleted at the SMS centre before it was delivered.",
    codes: [],
  },

  // recipient: the recipient's choice or the rules on reaching them.
  DNDNUMB: {
    final: true,
    outcome: "undelivered",
    reason: "recipient",
    transient: false,
    meaning: "The number is on India's Do-Not-Disturb registry, which the message may not reach.",
    codes: [{ code: "408", description: "Number registered in dnd database." }],
  },
  BLACKLST: {
    final: true,
    outcome: "undelivered",
    reason: "recipient",
    transient: false,
    meaning: "The number is on a blocklist (the provider's, the operator's or the account's).",
    codes: [{ code: "450", description: "Number blocklisted to receive messages" }],
  },
  "NOT-OPTIN": {
    final: true,
    outcome: "undelivered",
    reason: "recipient",
    transient: false,
    meaning: "The number is not on the account's opt-in list.",
    codes: [{ code: "455", description: "Message rejected as number not in optin list" }],
  },
  "OPTOUT-REJ": {
    final: true,
    outcome: "undelivered",
    reason: "recipient",
    transient: false,
    meaning: "The number opted out of receiving messages.",
    codes: [{ code: "456", description: "Rejected as number optout to receive messages" }],
  },
  "PROMO-TMOUT": {
    final: true,
    outcome: "undelivered",
    reason: "recipient",
    transient: true,
    meaning: "Outside the hours promotional messages may be sent in.",
    codes: [{ code: "457", description: "Promotional time exceeded" }],
  },

  // account: the sending account.
  "NO-CREDITS": {
    final: true,
    outcome: "undelivered",
    reason: "account",
    transient: true,
    meaning: "The account ran out of credits.",
    codes: [{ code: "401", description: "Credit exhausted." }],
  },
  "NO-ACCOUNT": {
    final: true,
    outcome: "undelivered",
    reason: "account",
    transient: false,
    meaning: "The sending account is not valid.",
    codes: [{ code: "402", description: "Invalid account." }],
  },
  NOTALLOWED: {
    final: true,
    outcome: "undelivered",
    reason: "account",
    transient: false,
    meaning: "The account may not send SMS to the number's country.",
    codes: [{ code: "459", description: "Country not allowed to send sms" }],
  },
  THROTTLED: {
    final: true,
    outcome: "undelivered",
    reason: "account",
    transient: true,
    meaning: "The account reached its sending limit.",
    codes: [{ code: "463", description: "Maximum Sent Limit is Reached" }],
  },
  "INV-PROVISION": {
    final: true,
    outcome: "undelivered",
    reason: "account",
    transient: false,
    meaning: "The sender is not provisioned for the account.",
    codes: [{ code: "790", description: "Sender Invalid Provision" }],
  },
  "INV-SERVICE": {
    final: true,
    outcome: "undelivered",
    reason: "account",
    transient: false,
    meaning: "The service type asked for is not valid for the account.",
    codes: [{ code: "791", description: "Invalid Service Type" }],
  },
  "INV-SCHEDULE": {
    final: true,
    outcome: "undelivered",
    reason: "account",
    transient: false,
    meaning: "The schedule given for the message is not valid.",
    codes: [{ code: "792", description: "Invalid Schedule" }],
  },

  // content: the text itself.
  SPAM: {
    final: true,
    outcome: "undelivered",
    reason: "content",
    transient: false,
    meaning: "The text was judged illegal content (spam).",
    codes: [{ code: "407", description: "Sent illegal content" }],
  },
  DUPLICATE: {
    final: true,
    outcome: "undelivered",
    reason: "content",
    transient: false,
    meaning: "The same content was sent already; this one was refused as a duplicate.",
    codes: [{ code: "460", description: "Same content sent" }],
  },

  // expired: the validity period ran out.
  EXPIRED: {
    final: true,
    outcome: "undelivered",
    reason: "expired",
    transient: true,
    meaning: "Its validity period ended before delivery (the handset stayed off or out of reach).",
    codes: [{ code: "021", description: "SMS timeout" }],
  },

  // unknown: nobody can say (the field notes and SMPP practice).
  "TIMEOUT-DLR": {
    final: true,
    outcome: "unknown",
    reason: "unknown",
    transient: false,
    meaning: "No receipt came from the operator in time; the provider stopped waiting.",
    codes: [],
  },
  UNKNOWN: {
    final: true,
    outcome: "unknown",
    reason: "unknown",
    transient: false,
    meaning: "The SMS centre reports the message's state as unknown; nothing follows it.",
    codes: [],
  },
} as const satisfies Record<string, StatusRow>;

/**
 * Every status starting with "DLT-" (any case) that is not a row of the table: refused under
 * India's DLT rules (the template, the header or the entity is not registered, or the text does
 * not match the template).
 */
export const DLT_REJECTION = {
  prefix: "DLT-",
  final: true,
  outcome: "undelivered",
  reason: "dlt",
  transient: false,
  meaning:
    "Refused under India's DLT rules: template, header or entity not registered, or the text does not match the template.",
  codes: [],
} as const satisfies StatusRow & { prefix: string };
