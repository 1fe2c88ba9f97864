export { CONNECT_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from "./connection.js";
export {
  DEFAULT_LOCK_TIMEOUT_MS,
  DEFAULT_RETENTION_MS,
  type PostgresInbox,
  type PostgresInboxOptions,
  type PostgresScope,
  postgresInbox,
} from "./postgres-inbox.js";
export { type PostgresJournalOptions, postgresJournal } from "./postgres-journal.js";
export { type RecordedStatus, type RecordStatusOptions, recordStatus } from "./record-status.js";
export {
  DEFAULT_INBOX_TABLE,
  DEFAULT_JOURNAL_TABLE,
  MESSAGE_STATUS_TABLE,
  postgresInboxSql,
  STATUS_HISTORY_TABLE,
} from "./schema.js";
