// The ledger's SQL beyond recordStatus's first two tables: the columns a message row gained for
// the insights (added to a table an older reportkit made, `ADD COLUMN IF NOT EXISTS`), the calls'
// and the opt-outs' tables, and the indexes the insights' queries read by. Each row's time (the
// one a day is counted by) is one expression here, used by the index and by every query alike:
// Postgres uses an expression index only for the same expression.
import { CALLS_TABLE, MESSAGE_STATUS_TABLE, OPT_OUTS_TABLE } from "./table-names.js";

/**
 * The columns a message row has besides its status (what the reports say about the message),
 * in the order recordStatus writes them. `reason` and `transient` describe the row's status;
 * the others the message, kept from the report that moved the status, or from an earlier one
 * when that report lacks them.
 */
export const MESSAGE_DETAIL_COLUMNS = [
  { name: "reason", type: "text" },
  { name: "transient", type: "boolean" },
  { name: "sent_at", type: "timestamptz" },
  { name: "submitted_at", type: "timestamptz" },
  { name: "delivered_at", type: "timestamptz" },
  { name: "credits", type: "numeric" },
  { name: "units", type: "integer" },
  { name: "provider", type: "text" },
  { name: "provider_code", type: "text" },
  { name: "region", type: "text" },
  { name: "region_code", type: "text" },
  { name: "location", type: "text" },
  { name: "location_code", type: "text" },
  { name: "custom", type: "text" },
  { name: "custom1", type: "text" },
  { name: "custom2", type: "text" },
] as const;

/**
 * When a message was sent, as the insights count it: when the provider received the request
 * (`sent_at`), else when it went to the operator, else when its first report arrived.
 */
export const MESSAGE_TIME = "COALESCE(sent_at, submitted_at, first_seen)";
/** When a call was made: its start, else its end, else the report's time, else its arrival. */
export const CALL_TIME = "COALESCE(started_at, ended_at, reported_at, received_at)";
/** When a number opted out: the opt-out's own time, else its arrival. */
export const OPT_OUT_TIME = "COALESCE(created_at, received_at)";

/** The ledger's indexes and tables beyond recordStatus's two, as to_regclass reads them. */
export const LEDGER_RELATIONS: readonly string[] = [
  `${MESSAGE_STATUS_TABLE}_sent_idx`,
  CALLS_TABLE,
  `${CALLS_TABLE}_started_idx`,
  OPT_OUTS_TABLE,
  `${OPT_OUTS_TABLE}_receiver_key_idx`,
  `${OPT_OUTS_TABLE}_created_idx`,
];

/** The message columns a store checks are there (table, column), as the catalog names them. */
export const LEDGER_COLUMNS: readonly (readonly [string, string])[] = MESSAGE_DETAIL_COLUMNS.map(
  ({ name }) => [MESSAGE_STATUS_TABLE, name] as const,
);

/**
 * The message row's detail columns (added when missing), the calls' and the opt-outs' tables,
 * and the indexes of all three. Runs after recordStatus's CREATE TABLE.
 */
export function ledgerSql(): string {
  const added = MESSAGE_DETAIL_COLUMNS.map(
    ({ name, type }) => `ADD COLUMN IF NOT EXISTS ${name} ${type}`,
  ).join(", ");
  return `ALTER TABLE ${MESSAGE_STATUS_TABLE} ${added};
CREATE INDEX IF NOT EXISTS ${MESSAGE_STATUS_TABLE}_sent_idx ON ${MESSAGE_STATUS_TABLE} ((${MESSAGE_TIME}));
CREATE TABLE IF NOT EXISTS ${CALLS_TABLE} (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  call_key text UNIQUE,
  mid text,
  status text NOT NULL,
  outcome text NOT NULL,
  transient boolean NOT NULL,
  source text,
  duration integer,
  billing integer,
  started_at timestamptz,
  ended_at timestamptz,
  reported_at timestamptz,
  received_at timestamptz NOT NULL,
  flow_id integer,
  hangup_by text,
  status1 text,
  status2 text
);
CREATE INDEX IF NOT EXISTS ${CALLS_TABLE}_started_idx ON ${CALLS_TABLE} ((${CALL_TIME}));
CREATE TABLE IF NOT EXISTS ${OPT_OUTS_TABLE} (
  id text PRIMARY KEY,
  receiver text,
  receiver_key text,
  type text,
  value text,
  created_at timestamptz,
  received_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS ${OPT_OUTS_TABLE}_receiver_key_idx ON ${OPT_OUTS_TABLE} (receiver_key);
CREATE INDEX IF NOT EXISTS ${OPT_OUTS_TABLE}_created_idx ON ${OPT_OUTS_TABLE} ((${OPT_OUT_TIME}));
`;
}
