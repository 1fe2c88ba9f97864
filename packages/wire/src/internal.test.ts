import { describe, expect, it } from "vitest";
import { type BodyChunk, concatBytes, isRecord, readCapped, zoneFormatter } from "./internal.js";

/** A `next` over fixed chunks, counting its calls. */
function chunksOf(...chunks: (Uint8Array | string)[]) {
  let i = 0;
  const source = {
    calls: 0,
    next: (): Promise<BodyChunk> => {
      source.calls++;
      const value = chunks[i++];
      return Promise.resolve(value === undefined ? { done: true } : { done: false, value });
    },
  };
  return source;
}

describe("readCapped", () => {
  it("reads a body of exactly the limit whole, strings as UTF-8", async () => {
    const source = chunksOf(new Uint8Array([1, 2]), "é");
    const read = await readCapped(source.next, 4);
    expect(read).toEqual({ ok: true, bytes: new Uint8Array([1, 2, 0xc3, 0xa9]) });
    expect(source.calls).toBe(3);
  });

  it("stops at the first chunk past the limit, saying how many bytes had arrived", async () => {
    const source = chunksOf(new Uint8Array(3), new Uint8Array(3), new Uint8Array(3));
    expect(await readCapped(source.next, 5)).toEqual({ ok: false, received: 6 });
    expect(source.calls).toBe(2);
  });

  it("gives an empty body for no chunks and the chunk itself for one", async () => {
    expect(await readCapped(chunksOf().next, 0)).toEqual({ ok: true, bytes: new Uint8Array(0) });
    const only = new Uint8Array([7]);
    const read = await readCapped(chunksOf(only).next, 1);
    expect(read.ok && read.bytes).toBe(only);
  });

  it("rejects as the source does", async () => {
    const failure = new Error("socket hang up");
    await expect(readCapped(() => Promise.reject(failure), 10)).rejects.toBe(failure);
  });

  it("concatBytes joins chunks in order", () => {
    const bytes = concatBytes([new Uint8Array([1]), new Uint8Array([2, 3])], 3);
    expect([...bytes]).toEqual([1, 2, 3]);
  });
});

describe("zoneFormatter", () => {
  it("formats an instant as 24-hour wall-clock parts in the zone, built once", () => {
    const format = zoneFormatter("Asia/Kolkata");
    const parts = Object.fromEntries(
      format.formatToParts(Date.UTC(2021, 3, 9, 18, 30, 5)).map((p) => [p.type, p.value]),
    );
    expect(parts).toMatchObject({
      year: "2021",
      month: "04",
      day: "10",
      hour: "00",
      minute: "00",
      second: "05",
    });
    expect(zoneFormatter("Asia/Kolkata")).toBe(format);
  });

  it("throws a RangeError for a zone the runtime does not know", () => {
    expect(() => zoneFormatter("Mars/Olympus")).toThrow(RangeError);
  });
});

describe("isRecord", () => {
  it("is true for objects only, not null or arrays", () => {
    expect([{}, Object.create(null), [], null, "x", 1].map(isRecord)).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});
