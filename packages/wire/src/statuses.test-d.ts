import { describe, expectTypeOf, it } from "vitest";
import {
  type CALL_OUTCOMES,
  type CallOutcome,
  classifyCallStatus,
  classifyDeliveryStatus,
  type DELIVERY_OUTCOMES,
  type DELIVERY_STATUSES,
  type DeliveryOutcome,
  type DeliveryStatus,
} from "./index.js";

describe("status types come from the tables", () => {
  it("the outcomes are literal unions, not string", () => {
    expectTypeOf<DeliveryOutcome>().toEqualTypeOf<
      "delivered" | "undelivered" | "pending" | "unknown"
    >();
    expectTypeOf<CallOutcome>().toEqualTypeOf<"answered" | "unanswered" | "unknown">();
    expectTypeOf<(typeof DELIVERY_OUTCOMES)[number]>().toEqualTypeOf<DeliveryOutcome>();
    expectTypeOf<(typeof CALL_OUTCOMES)[number]>().toEqualTypeOf<CallOutcome>();
    expectTypeOf(classifyDeliveryStatus("x").outcome).toEqualTypeOf<DeliveryOutcome>();
    expectTypeOf(classifyCallStatus("x").outcome).toEqualTypeOf<CallOutcome>();
  });

  it("the known statuses are literals, and any status still fits", () => {
    expectTypeOf<(typeof DELIVERY_STATUSES)[number]>().toExtend<string>();
    expectTypeOf<"REJ-MULTIPART">().toExtend<(typeof DELIVERY_STATUSES)[number]>();
    expectTypeOf<"DLT-HEADER">().toExtend<DeliveryStatus>();
    expectTypeOf<"ANYTHING">().toExtend<DeliveryStatus>();
  });
});
