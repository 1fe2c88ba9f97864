export { CONNECT_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from "./connection.js";
export { NUMBER_KEY_DIGITS, numberKey } from "./number-key.js";
export {
  DEFAULT_LOCK_TIMEOUT_MS,
  DEFAULT_RETENTION_MS,
  type PostgresInbox,
  type PostgresInboxOptions,
  type PostgresScope,
  postgresInbox,
} from "./postgres-inbox.js";
export { type PostgresJournalOptions, postgresJournal } from "./postgres-journal.js";
export { type RecordedCall, recordCall } from "./record-call.js";
export { mayMessage, type RecordedOptOut, recordOptOut } from "./record-opt-out.js";
export { type RecordedStatus, type RecordStatusOptions, recordStatus } from "./record-status.js";
export {
  CALLS_TABLE,
  DEFAULT_INBOX_TABLE,
  DEFAULT_JOURNAL_TABLE,
  MESSAGE_STATUS_TABLE,
  OPT_OUTS_TABLE,
  postgresInboxSql,
  STATUS_HISTORY_TABLE,
} from "./schema.js";
