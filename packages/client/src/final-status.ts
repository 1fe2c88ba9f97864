// ─── LOCAL STAND-IN, to be replaced at merge ─────────────────────────────────────────────────
// Which statuses are final. @reportkit/wire is getting the provider's status vocabulary (branch
// `statuses`); when it lands, these two predicates become wire's table and this file goes.
// Until then, the lists below, from field-notes.md ("SMS statuses seen in the provider's own
// pages", SMPP practice, Asterisk DIALSTATUS). Anything not listed (AWAITING-DLR, ENROUTE,
// ACCEPTD, a status never seen) is not final: reconcile counts it `pending` and sends nothing,
// since the provider itself will push its final status later.
// ─────────────────────────────────────────────────────────────────────────────────────────────

const FINAL_DELIVERY_STATUSES: ReadonlySet<string> = new Set([
  "DELIVRD",
  "UNDELIV",
  "EXPIRED",
  "REJECTD",
  "FAILED",
  "BARRED",
  "BLACKLST",
  "INVALID-SUB",
  "MOB-OFF",
  "NET-ERR",
  "REJ-MULTIPART",
  "DNDNUMB",
  "TIMEOUT-DLR",
  "DELETED",
  "UNKNOWN",
]);

/** India's DLT rejections: DLT-TEMPLATE-..., DLT-HEADER-..., and so on. */
const DLT_REJECTION = /^DLT-./;

const FINAL_CALL_STATUSES: ReadonlySet<string> = new Set([
  "ANSWER",
  "BUSY",
  "NOANSWER",
  "CANCEL",
  "CONGESTION",
  "CHANUNAVAIL",
]);

/** Whether an SMS status is the message's last word (a delivery receipt, or a rejection). */
export function isFinalDeliveryStatus(status: string): boolean {
  const upper = status.trim().toUpperCase();
  return FINAL_DELIVERY_STATUSES.has(upper) || DLT_REJECTION.test(upper);
}

/** Whether a call status says how the call ended (Asterisk's DIALSTATUS values). */
export function isFinalCallStatus(status: string): boolean {
  return FINAL_CALL_STATUSES.has(status.trim().toUpperCase());
}
