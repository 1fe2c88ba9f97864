// A dedupe store whose claim opens a unit of work (as @reportkit/postgres's does): only the
// attempt that claimed a key gets the store's scope on ctx, its `complete` is the commit (a
// rejection there is 503, never 2xx), a failure releases (rolls back), and a report without a
// key is still claimed under one of its own.
import { describe, expect, it } from "vitest";
import { postJson } from "../../../../test/fixtures/receiver-requests.js";
import { SAMPLE_DLR, TOKEN } from "../../../../test/fixtures/samples.js";
import { createReceiver } from "../receiver/create-receiver.js";
import type { ReportkitError } from "../reply/errors.js";
import type { ClaimResult, DedupeStore } from "../store-kit/dedupe-store.js";

const dlr = (id: string) => postJson({ ...SAMPLE_DLR, id });

interface Tx {
  owner: string;
  writes: string[];
}

/**
 * A store in memory that keeps what a transactional one would: one open "transaction" per
 * claimed owner, committed (its writes kept) by complete, dropped by release.
 */
function transactionalStore(options: { commit?: () => void | Promise<void> } = {}) {
  const done = new Set<string>();
  const open = new Map<string, Tx>();
  const committed: string[] = [];
  const calls: string[] = [];
  const store: DedupeStore<{ tx: Tx }> = {
    leaseMs: 60_000,
    claim(key, owner): ClaimResult {
      calls.push(`claim ${key}`);
      if (done.has(key)) return "done";
      if ([...open.keys()].some((o) => o.startsWith(`${key}|`))) return "busy";
      open.set(`${key}|${owner}`, { owner, writes: [] });
      return "claimed";
    },
    scope(owner) {
      calls.push("scope");
      const entry = [...open.entries()].find(([k]) => k.endsWith(`|${owner}`));
      if (entry === undefined) throw new Error(`no claim for ${owner}`);
      return { tx: entry[1] };
    },
    async complete(key, owner) {
      calls.push(`complete ${key}`);
      const tx = open.get(`${key}|${owner}`);
      open.delete(`${key}|${owner}`);
      await options.commit?.();
      done.add(key);
      committed.push(...(tx?.writes ?? []));
    },
    release(key, owner) {
      calls.push(`release ${key}`);
      open.delete(`${key}|${owner}`);
    },
  };
  return { store, committed, calls, open };
}

describe("a dedupe store with a scope (a transaction per report)", () => {
  it("gives the scope to the attempt that claimed the key, and commits its writes", async () => {
    const { store, committed, calls } = transactionalStore();
    const seen: (Tx | undefined)[] = [];
    const receiver = createReceiver({
      secret: TOKEN,
      dedupe: store,
      onDelivery: (report, ctx) => {
        seen.push(ctx.tx);
        ctx.tx.writes.push(report.id);
      },
    });
    const first = await receiver.handle(dlr("a:1"));
    expect(first.status).toBe(200);
    expect(committed).toEqual(["a:1"]);
    expect(seen).toHaveLength(1);
    // The retry is found done: no scope asked for, no handler run.
    const retry = await receiver.handle(dlr("a:1"));
    expect(retry.body).toBe('{"ok":true,"duplicate":true}');
    expect(seen).toHaveLength(1);
    expect(calls).toEqual([
      "claim delivery:a:1:DELIVRD",
      "scope",
      "complete delivery:a:1:DELIVRD",
      "claim delivery:a:1:DELIVRD",
    ]);
  });

  it("gives a copy that finds the key busy no scope and no handler run: 409", async () => {
    const { store, calls } = transactionalStore();
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let runs = 0;
    const receiver = createReceiver({
      secret: TOKEN,
      dedupe: store,
      logger: false,
      onDelivery: async () => {
        runs++;
        await held;
      },
    });
    const first = receiver.handle(dlr("b:1"));
    const copy = await receiver.handle(dlr("b:1"));
    expect(copy.status).toBe(409);
    expect(JSON.parse(copy.body).error.code).toBe("in_progress");
    expect(calls.filter((c) => c === "scope")).toHaveLength(1);
    release();
    expect((await first).status).toBe(200);
    expect(runs).toBe(1);
  });

  it("answers 503, never 2xx, when complete (the commit) rejects, and tells onError", async () => {
    const { store, committed } = transactionalStore({
      commit: () => Promise.reject(new Error("connection lost during COMMIT")),
    });
    const errors: ReportkitError[] = [];
    const receiver = createReceiver({
      secret: TOKEN,
      dedupe: store,
      onError: (error) => void errors.push(error),
      onDelivery: (report, ctx) => void ctx.tx.writes.push(report.id),
    });
    const reply = await receiver.handle(dlr("c:1"));
    expect(reply.status).toBe(503);
    expect(reply.headers["retry-after"]).toBe("30");
    expect(JSON.parse(reply.body).error.code).toBe("dedupe_unavailable");
    expect(committed).toEqual([]);
    expect(errors.map((e) => e.code)).toEqual(["dedupe_unavailable"]);
    expect((errors[0] as ReportkitError & { cause: Error }).cause.message).toBe(
      "connection lost during COMMIT",
    );
  });

  it("answers 503 when complete throws synchronously", async () => {
    const { store } = transactionalStore();
    store.complete = () => {
      throw new Error("not connected");
    };
    const receiver = createReceiver({
      secret: TOKEN,
      dedupe: store,
      logger: false,
      onDelivery: () => {},
    });
    expect((await receiver.handle(dlr("d:1"))).status).toBe(503);
  });

  it("keeps 200 when a store without a scope fails to complete (the handler's work is done)", async () => {
    const { store } = transactionalStore({ commit: () => Promise.reject(new Error("gone")) });
    delete store.scope;
    const receiver = createReceiver({
      secret: TOKEN,
      dedupe: store,
      logger: false,
      onDelivery: () => {},
    });
    expect((await receiver.handle(dlr("e:1"))).status).toBe(200);
  });

  it("releases (rolls back) when the handler fails; nothing is committed and the retry runs", async () => {
    const { store, committed, calls } = transactionalStore();
    let runs = 0;
    const receiver = createReceiver({
      secret: TOKEN,
      dedupe: store,
      logger: false,
      onDelivery: (report, ctx) => {
        runs++;
        ctx.tx.writes.push(report.id);
        if (runs === 1) throw new Error("boom");
      },
    });
    expect((await receiver.handle(dlr("f:1"))).status).toBe(500);
    expect(calls).toContain("release delivery:f:1:DELIVRD");
    expect(committed).toEqual([]);
    expect((await receiver.handle(dlr("f:1"))).status).toBe(200);
    expect(committed).toEqual(["f:1"]);
  });

  it("releases and answers 500 when scope throws, without running the handler", async () => {
    const { store, calls, open } = transactionalStore();
    store.scope = () => {
      throw new Error("no client");
    };
    let runs = 0;
    const receiver = createReceiver({
      secret: TOKEN,
      dedupe: store,
      logger: false,
      onDelivery: () => void runs++,
    });
    expect((await receiver.handle(dlr("g:1"))).status).toBe(500);
    expect(runs).toBe(0);
    expect(calls).toContain("release delivery:g:1:DELIVRD");
    expect(open.size).toBe(0);
  });

  it("claims a report without a key under a key of its own, so its handler gets the scope", async () => {
    const { store, committed, calls } = transactionalStore();
    const receiver = createReceiver({
      secret: TOKEN,
      dedupe: { store, key: () => undefined },
      onDelivery: (report, ctx) => void ctx.tx.writes.push(report.id),
    });
    expect((await receiver.handle(dlr("h:1"))).status).toBe(200);
    expect((await receiver.handle(dlr("h:1"))).status).toBe(200);
    // Not deduplicated (no key), yet each ran in a transaction of its own that committed.
    expect(committed).toEqual(["h:1", "h:1"]);
    const claims = calls.filter((c) => c.startsWith("claim "));
    expect(claims).toHaveLength(2);
    expect(claims[0]).toMatch(/^claim once:/);
    expect(claims[0]).not.toBe(claims[1]);
  });
});
