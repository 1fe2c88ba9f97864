import { createReceiver } from "@reportkit/core";
import { describe, expectTypeOf, it } from "vitest";
import { postgresInbox, type RecordedStatus, recordStatus } from "./index.js";

describe("recordStatus types", () => {
  it("takes ctx.tx and a delivery report, and says what it did in literal types", () => {
    createReceiver({
      secret: "t",
      dedupe: postgresInbox({ connectionString: "postgres://127.0.0.1/app" }),
      async onDelivery(report, ctx) {
        const recorded = await recordStatus(ctx.tx, report, { precedence: "latest" });
        expectTypeOf(recorded).toEqualTypeOf<RecordedStatus>();
        expectTypeOf(recorded.applied).toEqualTypeOf<boolean>();
        expectTypeOf(recorded.previous).toEqualTypeOf<string | null>();
        expectTypeOf(recorded.outcome).toEqualTypeOf<
          "delivered" | "undelivered" | "pending" | "unknown"
        >();
        // @ts-expect-error: precedence is "first" or "latest"
        await recordStatus(ctx.tx, report, { precedence: "last" });
      },
      async onCall(report, ctx) {
        // @ts-expect-error: a call report has no message status to order
        await recordStatus(ctx.tx, report);
      },
    });
  });
});
