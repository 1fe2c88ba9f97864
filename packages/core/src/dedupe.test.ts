import { afterEach, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR, TOKEN } from "../../../test/fixtures/samples.js";
import type { ReportContext } from "./context.js";
import { createReceiver } from "./create-receiver.js";
import type { DedupeStore } from "./dedupe-store.js";
import type { ReportkitError } from "./errors.js";
import { memoryDedupe } from "./memory-dedupe.js";
import type { ReceiverOptions } from "./receiver-options.js";
import type { DeliveryReport } from "./schemas.js";
import type { ReceiverRequest } from "./types.js";

let sequence = 0;
/** A DLR with an id of its own, so tests never meet each other's keys. */
function dlr(status = "DELIVRD", id = `${crypto.randomUUID()}:${++sequence}`): ReceiverRequest {
  return {
    method: "POST",
    url: "/webhooks",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ ...SAMPLE_DLR, id, status }),
  };
}

function bodyOf(reply: { body: string }): unknown {
  return JSON.parse(reply.body);
}

/** A promise with its resolve and reject at hand. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function receiverWith(
  onDelivery: (report: DeliveryReport, ctx: ReportContext) => unknown,
  extra: Partial<ReceiverOptions> = {},
) {
  const errors: ReportkitError[] = [];
  const receiver = createReceiver({
    token: TOKEN,
    onDelivery,
    onError: (e) => void errors.push(e),
    ...extra,
  } as ReceiverOptions);
  return { receiver, errors };
}

describe("dedupe: the default memory store", () => {
  it("runs the handler once for the same report twice; the second reply is 200 duplicate", async () => {
    let calls = 0;
    const { receiver } = receiverWith(() => {
      calls++;
    });
    const request = dlr();
    const first = await receiver.handle(request);
    const second = await receiver.handle(request);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(bodyOf(first)).toEqual({ ok: true });
    expect(bodyOf(second)).toEqual({ ok: true, duplicate: true });
    expect(calls).toBe(1);
  });

  it("tells apart two statuses of one message (ENROUTE, then DELIVRD)", async () => {
    const seen: string[] = [];
    const { receiver } = receiverWith((r) => void seen.push(r.status));
    const id = `${crypto.randomUUID()}:1`;
    await receiver.handle(dlr("ENROUTE", id));
    await receiver.handle(dlr("DELIVRD", id));
    expect(seen).toEqual(["ENROUTE", "DELIVRD"]);
  });

  it("runs the handler again on the retry of a report whose handler failed", async () => {
    let calls = 0;
    const { receiver } = receiverWith(() => {
      calls++;
      if (calls === 1) throw new Error("database down");
    });
    const request = dlr();
    expect((await receiver.handle(request)).status).toBe(500);
    expect((await receiver.handle(request)).status).toBe(200);
    expect(bodyOf(await receiver.handle(request))).toEqual({ ok: true, duplicate: true });
    expect(calls).toBe(2);
  });

  it("50 concurrent copies with a slow handler: handler once, no 2xx before it finished", async () => {
    const gate = deferred();
    let calls = 0;
    let finished = false;
    const { receiver } = receiverWith(async () => {
      calls++;
      await gate.promise;
      finished = true;
    });
    const request = dlr();
    const early: number[] = [];
    const replies = Array.from({ length: 50 }, () =>
      receiver.handle(request).then((reply) => {
        if (!finished) early.push(reply.status);
        return reply;
      }),
    );
    // Every copy but the first is answered while the handler still runs: none of them 2xx.
    await vi.waitFor(() => expect(early).toHaveLength(49), { timeout: 10_000 });
    expect(early.every((status) => status === 409)).toBe(true);
    gate.resolve();
    const statuses = (await Promise.all(replies)).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(calls).toBe(1);
    const busy = (await Promise.all(replies)).find((r) => r.status === 409);
    expect(busy?.headers["retry-after"]).toMatch(/^\d+$/);
    expect(bodyOf(busy as { body: string })).toMatchObject({ error: { code: "in_progress" } });
  });

  it("tells the handler its key in ctx.dedupeKey, and takes the app's own dedupeKey", async () => {
    const keys: (string | undefined)[] = [];
    const { receiver } = receiverWith((_r, ctx) => void keys.push(ctx.dedupeKey), {
      dedupeKey: (report) => (report.type === "delivery" ? `mine:${report.custom}` : undefined),
    });
    const first = await receiver.handle(dlr("DELIVRD", "a:1"));
    const other = await receiver.handle(dlr("DELIVRD", "b:2")); // same custom: same key
    expect([first.status, bodyOf(other)]).toEqual([200, { ok: true, duplicate: true }]);
    expect(keys).toEqual([`mine:${SAMPLE_DLR.custom}`]);
  });

  it("does not deduplicate a report whose dedupeKey is undefined, nor with dedupe: false", async () => {
    let calls = 0;
    const count = () => {
      calls++;
    };
    const request = dlr();
    const none = receiverWith(count, { dedupeKey: () => undefined }).receiver;
    const off = receiverWith(count, { dedupe: false }).receiver;
    for (const receiver of [none, none, off, off]) {
      expect(bodyOf(await receiver.handle(request))).toEqual({ ok: true });
    }
    expect(calls).toBe(4);
  });

  it("answers 500 internal_error when dedupeKey returns something else than a string", async () => {
    const { receiver, errors } = receiverWith(() => {}, { dedupeKey: () => 42 as never });
    expect((await receiver.handle(dlr())).status).toBe(500);
    expect(errors[0]?.code).toBe("internal_error");
    expect((errors[0]?.cause as Error | undefined)?.message).toMatch(
      /`dedupeKey` must return a non-empty/,
    );
  });
});

describe("dedupe: a store that fails", () => {
  const down: DedupeStore = {
    leaseMs: 1000,
    claim: () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:6379")),
    complete: () => undefined,
    release: () => undefined,
  };

  it("answers 503 dedupe_unavailable, never 2xx, and runs no handler", async () => {
    let calls = 0;
    const { receiver, errors } = receiverWith(
      () => {
        calls++;
      },
      { dedupe: down },
    );
    const reply = await receiver.handle(dlr());
    expect(reply.status).toBe(503);
    expect(reply.headers["retry-after"]).toMatch(/^\d+$/);
    expect(bodyOf(reply)).toMatchObject({ ok: false, error: { code: "dedupe_unavailable" } });
    expect(calls).toBe(0);
    expect((errors[0]?.cause as Error | undefined)?.message).toMatch(/ECONNREFUSED/);
  });

  it("still answers 200 when the handler succeeded but the store cannot record it", async () => {
    const forgetful: DedupeStore = {
      ...memoryDedupe(),
      leaseMs: 1000,
      claim: () => "claimed",
      complete: () => Promise.reject(new Error("connection lost")),
    };
    const { receiver, errors } = receiverWith(() => {}, { dedupe: forgetful });
    expect((await receiver.handle(dlr())).status).toBe(200);
    expect(errors.map((e) => e.code)).toEqual(["dedupe_unavailable"]);
  });
});

describe("deadlineMs", () => {
  it("answers 503 handler_timeout before a slow handler finished; the resend after it gets 200 duplicate", async () => {
    let calls = 0;
    let finished = false;
    // The handler runs until the test lets it finish, past the deadline however slow the machine.
    const gate = deferred();
    const { receiver, errors } = receiverWith(
      async () => {
        calls++;
        await gate.promise;
        finished = true;
      },
      { deadlineMs: 200 },
    );
    const request = dlr();
    const reply = await receiver.handle(request);
    expect(finished).toBe(false);
    expect(reply.status).toBe(503);
    expect(reply.headers["retry-after"]).toMatch(/^\d+$/);
    expect(bodyOf(reply)).toMatchObject({ error: { code: "handler_timeout" } });
    expect(errors.map((e) => e.code)).toEqual(["handler_timeout"]);
    // A retry while it still runs: not 2xx, not run again.
    expect((await receiver.handle(request)).status).toBe(409);
    gate.resolve();
    await vi.waitFor(() => expect(finished).toBe(true), { timeout: 10_000 });
    // The key is marked done just after the handler returned.
    await vi.waitFor(
      async () =>
        expect(bodyOf(await receiver.handle(request))).toEqual({ ok: true, duplicate: true }),
      { timeout: 10_000 },
    );
    expect(calls).toBe(1);
  });

  it("frees the key when the late handler fails, so the retry runs it again", async () => {
    let calls = 0;
    const gate = deferred();
    const { receiver } = receiverWith(
      async () => {
        calls++;
        if (calls > 1) return;
        await gate.promise;
        throw new Error("late failure");
      },
      { deadlineMs: 20 },
    );
    const request = dlr();
    expect((await receiver.handle(request)).status).toBe(503);
    expect((await receiver.handle(request)).status).toBe(409);
    gate.resolve();
    // Until the release lands, a retry is answered 409 without running the handler.
    await vi.waitFor(
      async () => expect(bodyOf(await receiver.handle(request))).toEqual({ ok: true }),
      { timeout: 10_000 },
    );
    expect(calls).toBe(2);
  });

  it("deadlineMs: false waits for the handler however long it takes", async () => {
    const { receiver } = receiverWith(() => new Promise((r) => setTimeout(r, 50)), {
      deadlineMs: false,
    });
    expect((await receiver.handle(dlr())).status).toBe(200);
  });
});

describe("memoryDedupe", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("claims once, says busy while held, done after complete; release frees only its own claim", () => {
    const store = memoryDedupe();
    expect(store.claim("k", "a")).toBe("claimed");
    expect(store.claim("k", "b")).toBe("busy");
    store.release("k", "b"); // not b's claim: still held
    expect(store.claim("k", "c")).toBe("busy");
    store.release("k", "a");
    expect(store.claim("k", "d")).toBe("claimed");
    store.complete("k", "d");
    expect(store.claim("k", "e")).toBe("done");
    store.release("k", "d"); // done stays done
    expect(store.claim("k", "f")).toBe("done");
  });

  it("lets a lease and a done key run out", async () => {
    // The store reads Date.now(): a fake clock moves it exactly, on any machine.
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = memoryDedupe({ leaseMs: 20, ttlMs: 40 });
    expect(store.claim("k", "a")).toBe("claimed");
    vi.setSystemTime(Date.now() + 19);
    expect(store.claim("k", "b")).toBe("busy");
    vi.setSystemTime(Date.now() + 11);
    expect(store.claim("k", "b")).toBe("claimed");
    store.complete("k", "b");
    expect(store.claim("k", "c")).toBe("done");
    vi.setSystemTime(Date.now() + 39);
    expect(store.claim("k", "c")).toBe("done");
    vi.setSystemTime(Date.now() + 11);
    expect(store.claim("k", "c")).toBe("claimed");
  });

  it("keeps at most maxKeys, dropping the least recently written", () => {
    const store = memoryDedupe({ maxKeys: 2 });
    for (const key of ["a", "b", "c"]) {
      store.claim(key, "o");
      store.complete(key, "o");
    }
    expect(store.claim("a", "o")).toBe("claimed");
    expect(store.claim("c", "o")).toBe("done");
  });

  it("keeps the most recently written maxKeys across many evictions and map compactions", () => {
    const store = memoryDedupe({ maxKeys: 100 });
    const write = (key: string) => {
      expect(store.claim(key, "o")).toBe("claimed");
      store.complete(key, "o");
    };
    for (let i = 0; i < 1000; i++) write(`k${i}`);
    expect(store.claim("k950", "p")).toBe("done");
    // Claims released on the way leave holes in the middle of the map too.
    for (let i = 1000; i < 5000; i++) {
      write(`k${i}`);
      if (i % 7 === 0) {
        expect(store.claim(`tmp${i}`, "t")).toBe("claimed");
        store.release(`tmp${i}`, "t");
      }
    }
    for (let i = 4900; i < 5000; i++) expect(store.claim(`k${i}`, "x")).toBe("done");
    // Those 100 checks wrote nothing; the oldest of all is long gone.
    expect(store.claim("k4899", "x")).toBe("claimed");
    expect(store.claim("k0", "x")).toBe("claimed");
  });

  it("drops in least-recently-written order over many evictions, a rewritten key last", () => {
    const store = memoryDedupe({ maxKeys: 3 });
    const write = (key: string) => {
      store.claim(key, "o");
      store.complete(key, "o");
    };
    for (const key of ["a", "b", "c"]) write(key);
    store.complete("a", "o"); // rewritten: now the most recent
    write("d"); // drops b
    write("e"); // drops c
    for (let i = 0; i < 1000; i++) write(`x${i}`);
    write("a");
    write("f"); // drops x998, the oldest of x998, x999, a
    expect(store.claim("x999", "p")).toBe("done");
    expect(store.claim("a", "p")).toBe("done");
    expect(store.claim("x998", "p")).toBe("claimed");
    expect(store.claim("b", "p")).toBe("claimed");
  });

  it.each([
    [{ ttlMs: 0 }, "memoryDedupe: `ttlMs` must be a whole number of milliseconds above 0, got 0."],
    [{ maxKeys: -1 }, "memoryDedupe: `maxKeys` must be a whole number above 0, got -1."],
    [
      { leaseMs: 1.5 },
      "memoryDedupe: `leaseMs` must be a whole number of milliseconds above 0, got 1.5.",
    ],
    [{ ttl: 5 }, "memoryDedupe: unknown option `ttl`; the options are ttlMs, maxKeys, leaseMs."],
  ])("refuses %o", (options, message) => {
    expect(() => memoryDedupe(options as never)).toThrow(message);
  });
});
