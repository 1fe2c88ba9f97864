// @reportkit/postgres/insights: what the ledger says, as plain data. Functions that take a pg
// pool (or client) and a range (with filters) and read the tables recordStatus, recordCall and
// recordOptOut keep; `reportkit insights` prints and draws them.
export { callsByDay, type DayCalls } from "./insights/call-insights.js";
export {
  FILTERS,
  type InsightsFilter,
  type InsightsQuery,
  type InsightsRange,
  MAX_RANGE_DAYS,
  type Queryable,
} from "./insights/insights-query.js";
export {
  creditsByDay,
  type DayCredits,
  type DayLatency,
  type DayOutcomes,
  DEFAULT_BREAKDOWN_LIMIT,
  type DimensionOutcomes,
  deliveryLatency,
  deliveryRateBy,
  type FailureCount,
  failuresBy,
  type LatencyPercentiles,
  MESSAGE_DIMENSIONS,
  type MessageDimension,
  type MessageSummary,
  messageSummary,
  messagesByDay,
  type ProviderLatency,
} from "./insights/message-insights.js";
export {
  type DayOptOuts,
  optOutsByDay,
  optOutsBySender,
  type SenderOptOuts,
} from "./insights/opt-out-insights.js";
export type { OutcomeCounts } from "./insights/outcome-counts.js";
export {
  type Insights,
  missingFromLedger,
  type ReadInsightsOptions,
  readInsights,
  TAG_FIELDS,
  type TagField,
} from "./insights/read-insights.js";
export {
  DEFAULT_STATEMENT_TIMEOUT_MS,
  type ReadOnlyPoolOptions,
  readOnlyPool,
} from "./insights/read-only-pool.js";
