// The handler's ctx is its own object: the receiver's request state is not in it, so neither a
// store's scope nor a handler can change how the receiver replies, journals or measures.
import { describe, expect, it } from "vitest";
import { postJson } from "../../../../test/fixtures/receiver-requests.js";
import { SAMPLE_DLR, TOKEN } from "../../../../test/fixtures/samples.js";
import { createReceiver } from "../receiver/create-receiver.js";
import type { DedupeStore, JournalRecord } from "../store-kit/dedupe-store.js";
import type { ReportSpan, Telemetry } from "../store-kit/telemetry.js";

const dlr = (id: string) => postJson({ ...SAMPLE_DLR, id });

/** A memory store whose scope returns `scope` for every claim. */
function storeWithScope<S extends object>(scope: S): DedupeStore<S> {
  const keys = new Map<string, "held" | "done">();
  return {
    leaseMs: 60_000,
    claim: (key) => {
      if (keys.has(key)) return keys.get(key) === "done" ? "done" : "busy";
      keys.set(key, "held");
      return "claimed";
    },
    scope: () => scope,
    complete: (key) => void keys.set(key, "done"),
    release: (key) => void keys.delete(key),
  };
}

function recordingTelemetry() {
  const ended: string[] = [];
  const telemetry: Telemetry = {
    startReport(): ReportSpan {
      return {
        run: (fn) => fn(),
        handlerDuration: () => {},
        end: (outcome) => void ended.push(outcome),
        carrier: () => ({}),
      };
    },
    refused: () => {},
  };
  return { telemetry, ended };
}

describe("the handler's ctx", () => {
  it("a scope with a `span` key is the handler's, not the receiver's: telemetry ends the report's own span", async () => {
    const { telemetry, ended } = recordingTelemetry();
    const seen: unknown[] = [];
    const receiver = createReceiver({
      secret: TOKEN,
      logger: false,
      telemetry,
      dedupe: storeWithScope({ span: null }),
      onDelivery: (_report, ctx) => void seen.push(ctx.span),
    });
    const reply = await receiver.handle(dlr("span:1"));
    expect(reply.status).toBe(200);
    expect(seen).toEqual([null]);
    expect(ended).toEqual(["acknowledged"]);
  });

  it("a scope with `kind` and `authenticated` keys does not turn the failure journal off", async () => {
    const kept: JournalRecord[] = [];
    const receiver = createReceiver({
      secret: TOKEN,
      logger: false,
      dedupe: storeWithScope({ kind: "call", authenticated: false }),
      journal: { record: async (entry) => void kept.push(entry) },
      onDelivery: () => {
        throw new Error("insert failed");
      },
    });
    const reply = await receiver.handle(dlr("journal:1"));
    expect(reply.status).toBe(500);
    expect(kept.map((e) => [e.kind, e.status, e.error.code])).toEqual([
      ["delivery", "failed", "handler_failed"],
    ]);
  });

  it("a scope that names a documented field is refused: 500 internal_error naming the key, the claim freed", async () => {
    const errors: unknown[] = [];
    const store = storeWithScope({ method: "GET" });
    const receiver = createReceiver({
      secret: TOKEN,
      logger: false,
      dedupe: store,
      onDelivery: () => {},
      onError: (error) => void errors.push(error.cause),
    });
    const reply = await receiver.handle(dlr("method:1"));
    expect(reply.status).toBe(500);
    expect(JSON.parse(reply.body).error.code).toBe("internal_error");
    expect(String(errors[0])).toMatch(/scope\(\) returned `method`, a field of ctx/);
    // Freed: the provider's retry claims it again.
    expect(store.claim("delivery:method:1:DELIVRD", "next")).toBe("claimed");
  });

  it("ctx.url is the request's URL without the verification's ?token= or any other credential (issue 42, 7)", async () => {
    const urls: string[] = [];
    const receiver = createReceiver({
      secret: TOKEN,
      logger: false,
      onDelivery: (_report, ctx) => void urls.push(ctx.url),
    });
    const request = { ...dlr("ctx:url"), url: "/webhooks?token=v-77&api_key=k1&shop=7" };
    expect((await receiver.handle(request)).status).toBe(200);
    expect(urls[0]).toContain("shop=7");
    expect(urls[0]).not.toMatch(/v-77|k1/);
  });

  it("holds the documented fields read-only and nothing of the receiver's state", async () => {
    const probes: Record<string, unknown>[] = [];
    const receiver = createReceiver({
      secret: TOKEN,
      logger: false,
      onDelivery: (_report, ctx) => {
        const writable = ctx as unknown as Record<string, unknown>;
        let assigned = true;
        try {
          writable.method = "GET";
        } catch {
          assigned = false;
        }
        probes.push({
          assigned,
          method: ctx.method,
          internals: ["authenticated", "body", "kind", "span", "bodyReadBegun"].filter(
            (key) => key in ctx,
          ),
          json: JSON.parse(JSON.stringify(ctx)),
        });
      },
    });
    expect((await receiver.handle(dlr("ctx:1"))).status).toBe(200);
    expect(probes[0]).toMatchObject({ assigned: false, method: "POST", internals: [] });
    expect(Object.keys(probes[0]?.json as object).sort()).toEqual([
      "dedupeKey",
      "headers",
      "method",
      "receivedAt",
      "url",
    ]);
    const json = probes[0]?.json as { headers: object };
    expect(json.headers).not.toHaveProperty("authorization");
  });
});
