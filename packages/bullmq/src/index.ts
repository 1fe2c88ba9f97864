export { DEFAULT_PARKING, type ParkingOptions } from "@reportkit/core/adapter";
export type { RedisConnection } from "@reportkit/redis/connection";
export {
  type BullmqQueueOptions,
  type BullmqReportQueue,
  bullmqQueue,
} from "./bullmq-queue.js";
export {
  type CreateWorkerOptions,
  createWorker,
  type ReportJobContext,
  type ReportWorker,
  type WorkerBackoff,
  type WorkerHandler,
} from "./create-worker.js";
export { reportJobId } from "./job-id.js";
export {
  type FailedReportJob,
  type QueueAdmin,
  type QueueAdminOptions,
  queueAdmin,
} from "./queue-admin.js";
export { DEFAULT_QUEUE_NAME } from "./queue-options.js";
export { type QueueStats, type QueueStatsOptions, queueStats } from "./queue-stats.js";
