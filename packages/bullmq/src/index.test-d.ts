import type { CallReport, DeliveryReport } from "@reportkit/core";
import type { ReportQueue } from "@reportkit/core/adapter";
import { describe, expectTypeOf, it } from "vitest";
import {
  type BullmqReportQueue,
  bullmqQueue,
  createWorker,
  type ReportJobContext,
  type ReportWorker,
} from "./index.js";

describe("public types", () => {
  it("the worker's handlers get the receiver's report types and the job context", () => {
    const worker = createWorker({
      connection: "redis://127.0.0.1:6379",
      onDelivery(report, job) {
        expectTypeOf(report).toEqualTypeOf<DeliveryReport>();
        expectTypeOf(report.deliveredAt).toEqualTypeOf<Date | null>();
        expectTypeOf(job).toEqualTypeOf<ReportJobContext>();
        expectTypeOf(job.dedupeKey).toEqualTypeOf<string | null>();
      },
      onCall(report) {
        expectTypeOf(report).toEqualTypeOf<CallReport>();
      },
    });
    expectTypeOf(worker).toEqualTypeOf<ReportWorker>();
    expectTypeOf(worker.close).returns.toEqualTypeOf<Promise<void>>();
  });

  it("bullmqQueue is a ReportQueue for the receiver's `queue` option", () => {
    const queue = bullmqQueue({ connection: { host: "127.0.0.1", port: 6379 } });
    expectTypeOf(queue).toEqualTypeOf<BullmqReportQueue>();
    expectTypeOf(queue).toExtend<ReportQueue>();
    // @ts-expect-error: the connection is required
    bullmqQueue({ queueName: "x" });
    // A Redis Cluster: its nodes as URLs or { host, port }, and a hash-tagged prefix.
    bullmqQueue({
      connection: { cluster: ["redis://10.0.0.1:7000", { host: "10.0.0.2", port: 7000 }] },
    });
    bullmqQueue({ connection: { cluster: ["redis://10.0.0.1:7000"] }, prefix: "{reportkit}" });
  });
});
