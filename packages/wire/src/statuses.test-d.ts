import { describe, expectTypeOf, it } from "vitest";
import {
  type CALL_OUTCOMES,
  type CallOutcome,
  type CallStatusClass,
  classifyCallStatus,
  classifyDeliveryStatus,
  type DELIVERY_OUTCOMES,
  type DELIVERY_REASONS,
  type DELIVERY_STATUSES,
  type DeliveryOutcome,
  type DeliveryReason,
  type DeliveryStatus,
  type DeliveryStatusClass,
  type StatusClass,
  type StatusCode,
} from "./index.js";

describe("status types come from the tables", () => {
  it("the outcomes and reasons are literal unions, not string", () => {
    expectTypeOf<DeliveryOutcome>().toEqualTypeOf<
      "delivered" | "undelivered" | "pending" | "unknown"
    >();
    expectTypeOf<CallOutcome>().toEqualTypeOf<"answered" | "unanswered" | "unknown">();
    expectTypeOf<DeliveryReason>().toEqualTypeOf<
      "dlt" | "handset" | "network" | "recipient" | "account" | "content" | "expired" | "unknown"
    >();
    expectTypeOf<(typeof DELIVERY_OUTCOMES)[number]>().toEqualTypeOf<DeliveryOutcome>();
    expectTypeOf<(typeof CALL_OUTCOMES)[number]>().toEqualTypeOf<CallOutcome>();
    expectTypeOf<(typeof DELIVERY_REASONS)[number]>().toEqualTypeOf<DeliveryReason>();
  });

  it("a lookup gives the row in one object, typed", () => {
    const delivery = classifyDeliveryStatus("x");
    expectTypeOf(delivery).toEqualTypeOf<DeliveryStatusClass>();
    expectTypeOf(delivery.outcome).toEqualTypeOf<DeliveryOutcome>();
    expectTypeOf(delivery.reason).toEqualTypeOf<DeliveryReason | null>();
    expectTypeOf(delivery.transient).toEqualTypeOf<boolean>();
    expectTypeOf(delivery.codes).toEqualTypeOf<readonly StatusCode[]>();
    const call = classifyCallStatus("x");
    expectTypeOf(call).toEqualTypeOf<CallStatusClass>();
    expectTypeOf(call.outcome).toEqualTypeOf<CallOutcome>();
    expectTypeOf(call.reason).toEqualTypeOf<null>();
    // StatusClass with one parameter, as before, still fits either.
    expectTypeOf(delivery).toExtend<StatusClass<DeliveryOutcome>>();
    expectTypeOf(call).toExtend<StatusClass<CallOutcome>>();
  });

  it("the known statuses are literals, and any status still fits", () => {
    expectTypeOf<(typeof DELIVERY_STATUSES)[number]>().toExtend<string>();
    expectTypeOf<"REJ-MULTIPART">().toExtend<(typeof DELIVERY_STATUSES)[number]>();
    expectTypeOf<"HANDSET-BUSY">().toExtend<(typeof DELIVERY_STATUSES)[number]>();
    expectTypeOf<"DLT-HEADER">().toExtend<DeliveryStatus>();
    expectTypeOf<"ANYTHING">().toExtend<DeliveryStatus>();
  });
});
