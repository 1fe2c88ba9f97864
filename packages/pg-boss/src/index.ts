export { DEFAULT_PARKING, type ParkingOptions } from "@reportkit/core/adapter";
export {
  type CreateWorkerOptions,
  createWorker,
  type ReportJobContext,
  type ReportWorker,
  type WorkerContext,
  type WorkerHandler,
  type WorkerInboxOptions,
} from "./create-worker.js";
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
