// The zod schemas of the wire payloads and @reportkit/wire's payload types describe the same
// thing: a change to one without the other fails here.
import type { CallPayload, DeliveryPayload } from "@reportkit/wire";
import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { CallPayloadSchema, DeliveryPayloadSchema, DeliveryReport } from "./schemas.js";

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

describe("the verification page's extra DLR fields", () => {
  it("are text or null on the report, under camelCase names", () => {
    type Extra = Pick<
      DeliveryReport,
      | "custom1"
      | "custom2"
      | "location"
      | "region"
      | "provider"
      | "locationCode"
      | "regionCode"
      | "providerCode"
    >;
    expectTypeOf<Extra>().toEqualTypeOf<{
      custom1: string | null;
      custom2: string | null;
      location: string | null;
      region: string | null;
      provider: string | null;
      locationCode: string | null;
      regionCode: string | null;
      providerCode: string | null;
    }>();
  });

  it("are optional on the wire, a string or a number like custom", () => {
    type Wire = Pick<
      DeliveryPayload,
      | "custom1"
      | "custom2"
      | "location"
      | "region"
      | "provider"
      | "location_code"
      | "region_code"
      | "provider_code"
    >;
    expectTypeOf<Wire[keyof Wire]>().toEqualTypeOf<DeliveryPayload["custom"]>();
    expectTypeOf<Wire>().toEqualTypeOf<Partial<Wire>>();
  });
});
