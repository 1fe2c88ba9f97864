export { DEFAULT_PARKING, type ParkingOptions } from "@reportkit/core/adapter";
export { createWorker, type ReportWorker } from "./create-worker.js";
export { reportJobId } from "./job-id.js";
export {
  type PgBossQueueOptions,
  type PgBossReportQueue,
  pgBossQueue,
} from "./pg-boss-queue.js";
export {
  type FailedReportJob,
  type QueueAdmin,
  type QueueAdminOptions,
  queueAdmin,
} from "./queue-admin.js";
export { DEFAULT_QUEUE_NAME, DEFAULT_SCHEMA } from "./queue-options.js";
export { type QueueStats, type QueueStatsOptions, queueStats } from "./queue-stats.js";
export { DEFAULT_RETRY, type RetryOptions } from "./schedule.js";
export type {
  CreateWorkerOptions,
  ReportJobContext,
  WorkerContext,
  WorkerHandler,
  WorkerInboxOptions,
} from "./worker-options.js";
