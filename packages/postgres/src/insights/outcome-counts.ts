// Messages counted by outcome, and the delivery rate, as every message insight gives them.

/** Messages by what their status says, and the delivery rate. */
export interface OutcomeCounts {
  messages: number;
  delivered: number;
  undelivered: number;
  /** On their way: a receipt is still to come (ENROUTE, AWAITING-DLR). */
  pending: number;
  /** Nobody can say (TIMEOUT-DLR, UNKNOWN, a status reportkit does not know). */
  unknown: number;
  /**
   * delivered / (messages − pending), from 0 to 1: of the messages whose fate is settled, the
   * share delivered (unknown counts as not delivered). Null when none is settled.
   */
  deliveryRate: number | null;
}

/** The columns OutcomeCounts is read from, for a SELECT over message rows. */
export const OUTCOME_COLUMNS = `count(*) AS messages,
  count(*) FILTER (WHERE outcome = 'delivered') AS delivered,
  count(*) FILTER (WHERE outcome = 'undelivered') AS undelivered,
  count(*) FILTER (WHERE outcome = 'pending') AS pending,
  count(*) FILTER (WHERE outcome = 'unknown') AS unknown`;

/** A count, a sum or a percentile as Postgres answers it (bigint and numeric as text), or null. */
export function numberOf(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/** OutcomeCounts of a row with OUTCOME_COLUMNS (a missing day's row: all zero). */
export function outcomeCounts(row: Record<string, unknown>): OutcomeCounts {
  const messages = numberOf(row.messages) ?? 0;
  const delivered = numberOf(row.delivered) ?? 0;
  const pending = numberOf(row.pending) ?? 0;
  const settled = messages - pending;
  return {
    messages,
    delivered,
    undelivered: numberOf(row.undelivered) ?? 0,
    pending,
    unknown: numberOf(row.unknown) ?? 0,
    deliveryRate: settled > 0 ? delivered / settled : null,
  };
}
