// The names of the ledger's tables: what recordStatus, recordCall and recordOptOut write and the
// insights read. Fixed names (the handlers write through `ctx.tx`, in the inbox's schema path).

/** recordStatus's table: one row per message, its status as far as it has moved. */
export const MESSAGE_STATUS_TABLE = "reportkit_message_status";
/** recordStatus's history: one row per status it was given, applied or not. */
export const STATUS_HISTORY_TABLE = "reportkit_status_history";
/** recordCall's table: one row per call report. */
export const CALLS_TABLE = "reportkit_calls";
/** recordOptOut's table: one row per opt-out. */
export const OPT_OUTS_TABLE = "reportkit_opt_outs";
