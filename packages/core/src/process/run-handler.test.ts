import { describe, expect, it, vi } from "vitest";
import { postJson as post } from "../../../../test/fixtures/receiver-requests.js";
import { SAMPLE_DLR, TOKEN } from "../../../../test/fixtures/samples.js";
import type { ReceiverRequest } from "../base/types.js";
import { createReceiver } from "../receiver/create-receiver.js";
import type { ReceiverOptions } from "../receiver/options.js";
import type { ReportkitError } from "../reply/errors.js";
import type { DeliveryReport, Report } from "../report/schemas.js";
import type { DedupeStore } from "../store-kit/dedupe-store.js";
import { memoryDedupe } from "../store-kit/memory-dedupe.js";
import type { ReportContext } from "./run-handler.js";

let sequence = 0;
/** A DLR with an id of its own, so tests never meet each other's keys. */
function dlr(status = "DELIVRD", id = `${crypto.randomUUID()}:${++sequence}`): ReceiverRequest {
  return post({ ...SAMPLE_DLR, id, status });
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
    secret: TOKEN,
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
      dedupe: {
        key: (report) => (report.type === "delivery" ? `mine:${report.custom}` : undefined),
      },
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
    const none = receiverWith(count, { dedupe: { key: () => undefined } }).receiver;
    const off = receiverWith(count, { dedupe: false }).receiver;
    for (const receiver of [none, none, off, off]) {
      expect(bodyOf(await receiver.handle(request))).toEqual({ ok: true });
    }
    expect(calls).toBe(4);
  });

  it("answers 500 internal_error when dedupeKey returns something else than a string", async () => {
    const { receiver, errors } = receiverWith(() => {}, { dedupe: { key: () => 42 as never } });
    expect((await receiver.handle(dlr())).status).toBe(500);
    expect(errors[0]?.code).toBe("internal_error");
    expect((errors[0]?.cause as Error | undefined)?.message).toMatch(
      /`dedupe.key` must return a non-empty/,
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

describe("queue mode", () => {
  function queueOf(add: (report: Report, key: string | undefined) => Promise<void>) {
    return { enqueue: add };
  }

  it("answers 202 queued once the queue took the report, with its dedupe key", async () => {
    const added: [string, string | undefined][] = [];
    let settled = false;
    const receiver = createReceiver({
      secret: TOKEN,
      queue: queueOf(async (report, key) => {
        await new Promise((r) => setTimeout(r, 20));
        added.push([report.type, key]);
        settled = true;
      }),
    });
    const reply = await receiver.handle(post(SAMPLE_DLR));
    expect(settled).toBe(true);
    expect(reply.status).toBe(202);
    expect(JSON.parse(reply.body)).toEqual({ ok: true, queued: true });
    expect(added).toEqual([["delivery", `delivery:${SAMPLE_DLR.id}:${SAMPLE_DLR.status}`]]);
  });

  it("answers 503 queue_unavailable when the queue fails or does not answer within deadlineMs", async () => {
    const errors: ReportkitError[] = [];
    const failing = createReceiver({
      secret: TOKEN,
      queue: queueOf(() => Promise.reject(new Error("Connection is closed."))),
      onError: (e) => void errors.push(e),
    });
    const hanging = createReceiver({
      secret: TOKEN,
      deadlineMs: 50,
      queue: queueOf(() => new Promise(() => {})),
      onError: (e) => void errors.push(e),
    });
    for (const receiver of [failing, hanging]) {
      const reply = await receiver.handle(post(SAMPLE_DLR));
      expect(reply.status).toBe(503);
      expect(JSON.parse(reply.body)).toMatchObject({ error: { code: "queue_unavailable" } });
    }
    expect(errors.map((e) => (e.cause as Error).message)).toEqual([
      "Connection is closed.",
      "no answer within 50 ms",
    ]);
  });

  it("takes no handler: neither in options nor attached", () => {
    const queue = queueOf(async () => {});
    expect(() => createReceiver({ secret: TOKEN, queue }).onCall(() => {})).toThrow(
      /queue mode.*createWorker/,
    );
  });
});
