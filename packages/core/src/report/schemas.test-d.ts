// The zod schemas of the wire payloads and @reportkit/wire's payload types describe the same
// thing: a change to one without the other fails here.
import type { CallPayload, DeliveryPayload } from "@reportkit/wire";
import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { CallPayloadSchema, DeliveryPayloadSchema } from "./schemas.js";

/** The named keys of a loose object's type, without its `[key: string]: unknown`. */
type Named<T> = {
  [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K];
};

describe("wire payload types", () => {
  it("DeliveryPayloadSchema reads exactly the wire's DeliveryPayload", () => {
    expectTypeOf<Named<z.input<typeof DeliveryPayloadSchema>>>().toEqualTypeOf<DeliveryPayload>();
  });

  it("CallPayloadSchema reads exactly the wire's CallPayload", () => {
    expectTypeOf<Named<z.input<typeof CallPayloadSchema>>>().toEqualTypeOf<CallPayload>();
  });

  it("core exports the wire's types under their names", () => {
    expectTypeOf<import("../index.js").DeliveryPayload>().toEqualTypeOf<DeliveryPayload>();
    expectTypeOf<import("../index.js").CallPayload>().toEqualTypeOf<CallPayload>();
  });
});
