// The shape of one row of the status tables (delivery-status-table.ts, call-status-table.ts):
// the tables are checked against it, and their literal types flow from them, not from here.

/** One of the provider's codes for a status, with the provider's own description of it. */
export interface StatusCode {
  /** The code as `v2/sms/smpp.md` writes it, three digits ("001"). */
  readonly code: string;
  /** The provider's description of the code, as written there ("Unidentified subscriber."). */
  readonly description: string;
}

/** What a status says: the columns of a status table. */
export interface StatusRow<
  Outcome extends string = string,
  Reason extends string | null = string | null,
> {
  /** True when nothing should follow it: the last word on the message or the call. */
  readonly final: boolean;
  /** What it says about the message (delivered, undelivered, pending, unknown) or the call. */
  readonly outcome: Outcome;
  /** Why a message failed, as a class; null for a status that is no failure, and for calls. */
  readonly reason: Reason;
  /** Whether sending the same message (making the same call) again later may succeed. */
  readonly transient: boolean;
  /** One sentence saying what the status means, reportkit's words. */
  readonly meaning: string;
  /** The provider's codes for the status, each with its description; empty when it lists none. */
  readonly codes: readonly StatusCode[];
}
