import { describe, expect, it, vi } from "vitest";
import { postJson } from "../../../../test/fixtures/receiver-requests.js";
import { SAMPLE_DLR, TOKEN } from "../../../../test/fixtures/samples.js";
import type { DedupeStore } from "../store-kit/dedupe-store.js";
import { memoryDedupe } from "../store-kit/memory-dedupe.js";
import type { ReportQueue } from "../store-kit/report-queue.js";
import { createReceiver } from "./create-receiver.js";

const post = (id: string) => postJson({ ...SAMPLE_DLR, id });

function store(extra: Partial<DedupeStore> = {}): DedupeStore {
  return {
    leaseMs: 60_000,
    claim: () => "claimed",
    complete() {},
    release() {},
    ...extra,
  };
}

describe("receiver.close()", () => {
  it("refuses a timeout that is not a number of milliseconds at the call: the promise it returns never rejects", async () => {
    const receiver = createReceiver({ secret: TOKEN, onDelivery() {} });
    // Before: documented "never rejects", yet it rejected a bad timeoutMs.
    expect(() => receiver.close({ timeoutMs: -1 })).toThrow(
      "reportkit: close({ timeoutMs }) takes a number of milliseconds, 0 or more (default 9000), got -1.",
    );
    const failing = createReceiver({
      secret: TOKEN,
      onDelivery() {},
      dedupe: { ...memoryDedupe(), close: () => Promise.reject(new Error("already closed")) },
    });
    await expect(failing.close({ timeoutMs: 0 })).resolves.toBeUndefined();
  });

  it("waits for a handler in flight up to timeoutMs, then closes the store once however often it is called", async () => {
    const close = vi.fn(async () => {});
    const receiver = createReceiver({
      secret: TOKEN,
      dedupe: store({ close }),
      onDelivery: () => new Promise(() => {}),
      deadlineMs: false,
    });
    void receiver.handle(post("never:1"));
    await Promise.all([receiver.close({ timeoutMs: 50 }), receiver.close()]);
    expect(close).toHaveBeenCalledTimes(1);
    const refused = await receiver.handle(post("late:1"));
    expect(refused.status).toBe(503);
    expect(refused.headers["retry-after"]).toBe("30");
    expect(JSON.parse(refused.body).error.code).toBe("shutting_down");
  });

  it("waits for a report that came in through fetch() as for one through handle()", async () => {
    const close = vi.fn(async () => {});
    let finish: (() => void) | undefined;
    const receiver = createReceiver({
      secret: TOKEN,
      dedupe: store({ close }),
      onDelivery: () => new Promise<void>((resolve) => (finish = resolve)),
      deadlineMs: false,
    });
    const answered = receiver.fetch(
      new Request("http://localhost/webhooks", {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ ...SAMPLE_DLR, id: "fetched:1" }),
      }),
    );
    await vi.waitFor(() => expect(finish).toBeTypeOf("function"), { timeout: 10_000 });
    let closed = false;
    const closing = receiver.close({ timeoutMs: 60_000 }).then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The handler is still running: the store must stay open under it.
    expect(closed).toBe(false);
    expect(close).not.toHaveBeenCalled();
    finish?.();
    expect((await answered).status).toBe(200);
    await closing;
    expect(close).toHaveBeenCalledTimes(1);
  });

  it("closes the queue in queue mode, and a store or queue that fails to close does not make it reject", async () => {
    const queue: ReportQueue = {
      enqueue: async () => {},
      close: vi.fn(async () => {
        throw new Error("already gone");
      }),
    };
    const receiver = createReceiver({ secret: TOKEN, queue });
    await expect(receiver.close()).resolves.toBeUndefined();
    expect(queue.close).toHaveBeenCalledTimes(1);
  });
});

describe("receiver.health()", () => {
  it("names the store in the message of a failed ping, and the queue by its name", async () => {
    const receiver = createReceiver({
      secret: TOKEN,
      dedupe: store({
        name: "redis",
        ping: async () => {
          throw new Error("connection refused");
        },
      }),
      onDelivery() {},
    });
    expect(await receiver.health()).toEqual({
      ok: false,
      checks: { dedupe: { ok: false, message: "redis: connection refused" } },
    });
    const queued = createReceiver({
      secret: TOKEN,
      queue: {
        name: "reports",
        enqueue: async () => {},
        ping: async () => {
          throw new Error("down");
        },
      },
    });
    expect(await queued.health()).toEqual({
      ok: false,
      checks: { queue: { ok: false, message: 'queue "reports": down' } },
    });
  });
});
