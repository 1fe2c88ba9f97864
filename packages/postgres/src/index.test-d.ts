import { createReceiver, type ReportContext } from "@reportkit/core";
import type { DedupeStore } from "@reportkit/core/adapter";
import type pg from "pg";
import { describe, expectTypeOf, it } from "vitest";
import { type PostgresInbox, type PostgresScope, postgresInbox } from "./index.js";

describe("public types", () => {
  it("a handler gets ctx.tx, a pg PoolClient, from the dedupe option", () => {
    createReceiver({
      secret: "t",
      dedupe: postgresInbox({ connectionString: "postgres://127.0.0.1/app" }),
      onDelivery(_report, ctx) {
        expectTypeOf(ctx.tx).toEqualTypeOf<pg.PoolClient>();
        expectTypeOf(ctx.dedupeKey).toEqualTypeOf<string | undefined>();
      },
      onCall(_report, ctx) {
        expectTypeOf(ctx).toEqualTypeOf<ReportContext & PostgresScope>();
      },
    });
  });

  it("without it, ctx has no tx", () => {
    createReceiver({
      secret: "t",
      onDelivery(_report, ctx) {
        expectTypeOf(ctx).toEqualTypeOf<ReportContext>();
        // @ts-expect-error: no transaction without a transactional store
        void ctx.tx;
      },
    });
  });

  it("the inbox is a DedupeStore whose scope is { tx }", () => {
    expectTypeOf<PostgresInbox>().toMatchTypeOf<DedupeStore<PostgresScope>>();
    expectTypeOf<PostgresInbox["journal"]["list"]>().returns.resolves.items.toHaveProperty(
      "status",
    );
  });
});
