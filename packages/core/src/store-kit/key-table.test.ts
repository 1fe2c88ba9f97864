import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KeyTable } from "./key-table.js";

/** What KeyTable must behave as: a Map in insertion order, its oldest key dropped when full. */
class ModelTable {
  readonly entries = new Map<string, { expiresAt: number; owner: string | undefined }>();
  constructor(readonly capacity: number) {}
  add(key: string, expiresAt: number, owner: string | undefined): void {
    if (this.entries.size >= this.capacity) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(key, { expiresAt, owner });
  }
}

/** The first key of the pool that the table holds otherwise than the model, or undefined. */
function firstDifference(table: KeyTable, model: ModelTable): string | undefined {
  for (let k = 0; k < 60; k++) {
    const key = `delivery:${k}:DELIVRD`;
    const entry = table.find(key);
    const expected = model.entries.get(key);
    const held =
      entry === -1 ? undefined : { expiresAt: table.expiresAt(entry), owner: table.owner(entry) };
    if (JSON.stringify(held) !== JSON.stringify(expected)) {
      return `${key}: ${JSON.stringify(held)}, expected ${JSON.stringify(expected)}`;
    }
  }
  return undefined;
}

type Operation =
  | { op: "add"; key: number; expiresAt: number; owner: string | undefined }
  | { op: "remove"; key: number }
  | { op: "update"; key: number; expiresAt: number; owner: string | undefined };

const owner = fc.option(fc.constantFrom("a", "b", "c"), { nil: undefined });
const operation = (keys: number): fc.Arbitrary<Operation> =>
  fc.oneof(
    fc.record({
      op: fc.constant("add" as const),
      key: fc.nat(keys - 1),
      expiresAt: fc.integer({ min: 1, max: 1e12 }),
      owner,
    }),
    fc.record({ op: fc.constant("remove" as const), key: fc.nat(keys - 1) }),
    fc.record({
      op: fc.constant("update" as const),
      key: fc.nat(keys - 1),
      expiresAt: fc.integer({ min: 1, max: 1e12 }),
      owner,
    }),
  );

describe("KeyTable", () => {
  it("holds what a Map in insertion order holds, its oldest dropped past capacity", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.array(operation(60), { minLength: 50, maxLength: 600, size: "max" }),
        (capacity, operations) => {
          const table = new KeyTable(capacity);
          const model = new ModelTable(capacity);
          for (const operation of operations) {
            const key = `delivery:${operation.key}:DELIVRD`;
            const entry = table.find(key);
            expect(entry !== -1).toBe(model.entries.has(key));
            if (operation.op === "add") {
              if (entry !== -1) continue; // add takes keys without an entry
              table.add(key, operation.expiresAt, operation.owner);
              model.add(key, operation.expiresAt, operation.owner);
            } else if (entry === -1) {
              continue;
            } else if (operation.op === "remove") {
              table.remove(entry);
              model.entries.delete(key);
            } else {
              table.update(entry, operation.expiresAt, operation.owner);
              model.entries.set(key, { expiresAt: operation.expiresAt, owner: operation.owner });
            }
            const difference = firstDifference(table, model);
            if (difference !== undefined) expect.fail(`after ${operation.op}: ${difference}`);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it("keeps the newest `capacity` keys through growth and many compactions", () => {
    const table = new KeyTable(5_000);
    for (let i = 0; i <= 60_000; i++) {
      const key = `k${i}`;
      table.add(key, i + 1, i % 3 === 0 ? "owner" : undefined);
      // Every other claim is given up, leaving holes for the compaction to close.
      if (i % 2 === 1) table.remove(table.find(key));
    }
    let held = 0;
    for (let i = 0; i <= 60_000; i++) if (table.find(`k${i}`) !== -1) held++;
    expect(held).toBe(5_000);
    // The 5,000 newest even keys, k50002 to k60000 (each odd key's add dropped the oldest).
    expect(table.find("k60000")).not.toBe(-1);
    expect(table.owner(table.find("k59994"))).toBe("owner");
    expect(table.owner(table.find("k59996"))).toBe(undefined);
    expect(table.find("k50002")).not.toBe(-1);
    expect(table.find("k50000")).toBe(-1);
  });

  it("tells apart keys that differ anywhere, long or short, in any script", () => {
    const keys = [
      "",
      "a",
      "b",
      "ab",
      "ba",
      "delivery:é:DELIVRD",
      "delivery:e:DELIVRD",
      "call:😀:1",
      "call:😁:1",
      "x".repeat(10_000),
      `${"x".repeat(9_999)}y`,
    ];
    const table = new KeyTable(100);
    for (const [i, key] of keys.entries()) table.add(key, i + 1);
    for (const [i, key] of keys.entries()) expect(table.expiresAt(table.find(key))).toBe(i + 1);
    expect(table.find("c")).toBe(-1);
  });
});
