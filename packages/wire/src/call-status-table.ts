// Every call status the provider documents (`v2/voice/index.md`, "Description of Status"), once.
import type { StatusRow } from "./status-row.js";

/**
 * The call statuses reportkit knows: Asterisk's DIALSTATUS values and the IVR's own (RECEIVED,
 * MISSED, COMPLETED), as `v2/voice/index.md` describes them. A call report is pushed once the
 * call has ended, so every one of them is final. `outcome`: `answered` (ANSWER, and COMPLETED:
 * the second leg answered) or `unanswered`. A call has no `reason` (null); `transient` says
 * whether calling again later may reach the callee (a busy line, no answer, no channel:
 * yes; congestion, usually an unrecognised number: no). The provider gives no codes for call statuses.
 */
export const CALL_STATUS_TABLE = {
  ANSWER: {
    final: true,
    outcome: "answered",
    reason: null,
    transient: false,
    meaning: "The callee answered.",
    codes: [],
  },
  BUSY: {
    final: true,
    outcome: "unanswered",
    reason: null,
    transient: true,
    meaning: "The number was busy.",
    codes: [],
  },
  NOANSWER: {
    final: true,
    outcome: "unanswered",
    reason: null,
    transient: true,
    meaning: "It rang until the dial timed out; nobody answered.",
    codes: [],
  },
  CANCEL: {
    final: true,
    outcome: "unanswered",
    reason: null,
    transient: false,
    meaning: "The caller hung up before the callee picked up.",
    codes: [],
  },
  CONGESTION: {
    final: true,
    outcome: "unanswered",
    reason: null,
    // Not transient: the page says this is usually a number the network does not recognise,
    // which calling again will not fix.
    transient: false,
    meaning:
      "The call did not get through: congestion, or (usually, the provider says) a number not recognised.",
    codes: [],
  },
  CHANUNAVAIL: {
    final: true,
    outcome: "unanswered",
    reason: null,
    transient: true,
    meaning: "No channel to the callee was available (on SIP, the peer may not be registered).",
    codes: [],
  },
  RECEIVED: {
    final: true,
    outcome: "unanswered",
    reason: null,
    transient: false,
    meaning: "The call reached the IVR and was not forwarded to anyone.",
    codes: [],
  },
  MISSED: {
    final: true,
    outcome: "unanswered",
    reason: null,
    transient: false,
    meaning: "The call reached the IVR, and no agent answered it.",
    codes: [],
  },
  COMPLETED: {
    final: true,
    outcome: "answered",
    reason: null,
    transient: false,
    meaning: "The second leg was answered: the caller was put through.",
    codes: [],
  },
} as const satisfies Record<string, StatusRow>;
