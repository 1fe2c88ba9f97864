import { afterEach, describe, expect, it, vi } from "vitest";
import { memoryDedupe } from "./memory-dedupe.js";

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

  it("keeps exactly what a list in write order keeps, over random claims, completes and releases", () => {
    const maxKeys = 50;
    const store = memoryDedupe({ maxKeys });
    // The model: keys in the order they were last written, with what each holds.
    const model = new Map<string, "claimed" | "done">();
    const modelWrite = (key: string, value: "claimed" | "done") => {
      model.delete(key);
      if (model.size >= maxKeys) model.delete(model.keys().next().value as string);
      model.set(key, value);
    };
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 20_000; i++) {
      const key = `k${random(200)}`;
      const op = random(3);
      if (op === 0) {
        const expected =
          model.get(key) === undefined ? "claimed" : model.get(key) === "done" ? "done" : "busy";
        expect(store.claim(key, "o")).toBe(expected);
        if (expected === "claimed") modelWrite(key, "claimed");
      } else if (op === 1) {
        store.complete(key, "o");
        modelWrite(key, "done");
      } else {
        store.release(key, "o");
        if (model.get(key) === "claimed") model.delete(key);
      }
    }
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
