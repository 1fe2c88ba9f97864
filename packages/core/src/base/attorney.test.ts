import { describe, expect, it } from "vitest";
import { readOptions, shown } from "./attorney.js";

interface SomeOptions {
  connection?: string;
  ttlMs?: number;
  maxKeys?: number;
  prefix?: string;
  onError?: (error: Error) => void;
  create?: boolean;
  bodies?: "full" | "redacted";
}

const RULES = {
  example: "someStore({ ttlMs: 5 })",
  known: ["connection", "ttlMs", "maxKeys", "prefix", "onError", "create", "bodies"],
  renamed: { url: 'pass `connection: "redis://…"`' },
} as const;

const read = (options: object) => readOptions("someStore", options as SomeOptions, RULES);

describe("readOptions: the options object", () => {
  it.each([undefined, null, "redis://h", [1]])("refuses %j, with an example", (value) => {
    expect(() => read(value as object)).toThrow(
      new TypeError(
        `someStore: pass an options object, e.g. someStore({ ttlMs: 5 }), got ${shown(value)}.`,
      ),
    );
  });

  it("refuses an unknown key, naming the known ones", () => {
    expect(() => read({ ttl: 2 })).toThrow(
      new TypeError(
        "someStore: unknown option `ttl`; the options are connection, ttlMs, maxKeys, prefix, onError, create, bodies.",
      ),
    );
  });

  it("refuses a renamed key with its fix (before any other refusal), never showing its value", () => {
    let message = "";
    try {
      read({ url: "redis://:s3cret@h", ttl: 2 });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe('someStore: `url` was renamed: pass `connection: "redis://…"`.');
    // An old key given as undefined (an unset environment variable) is still the old key.
    expect(() => read({ url: undefined })).toThrow("someStore: `url` was renamed");
  });

  it("says who it reads for", () => {
    expect(read({}).who).toBe("someStore");
  });
});

describe("readOptions: positiveMs", () => {
  it("gives the value, or the fallback when not given", () => {
    expect(read({ ttlMs: 5 }).positiveMs("ttlMs", 9)).toBe(5);
    expect(read({}).positiveMs("ttlMs", 9)).toBe(9);
  });

  it.each([
    [0, "0"],
    [-1, "-1"],
    [1.5, "1.5"],
    [Number.NaN, "NaN"],
    ["5", '"5"'],
    [null, "null"],
  ])("refuses %j", (value, got) => {
    expect(() => read({ ttlMs: value }).positiveMs("ttlMs", 9)).toThrow(
      new TypeError(
        `someStore: \`ttlMs\` must be a whole number of milliseconds above 0, got ${got}.`,
      ),
    );
  });
});

describe("readOptions: wholeNumber, string, callback", () => {
  it("a whole number above 0 by default, in a range when given", () => {
    expect(read({ maxKeys: 3 }).wholeNumber("maxKeys", 1)).toBe(3);
    expect(read({}).wholeNumber("maxKeys", 1)).toBe(1);
    expect(() => read({ maxKeys: 0 }).wholeNumber("maxKeys", 1)).toThrow(
      new TypeError("someStore: `maxKeys` must be a whole number above 0, got 0."),
    );
    const range = { min: 1, max: 1000 };
    expect(read({ maxKeys: 1000 }).wholeNumber("maxKeys", 1, range)).toBe(1000);
    expect(() => read({ maxKeys: 1001 }).wholeNumber("maxKeys", 1, range)).toThrow(
      new TypeError("someStore: `maxKeys` must be a whole number from 1 to 1000, got 1001."),
    );
  });

  it("a string, a non-empty one when asked", () => {
    expect(read({ prefix: "" }).string("prefix", "x")).toBe("");
    expect(read({}).string("prefix", "x")).toBe("x");
    expect(() => read({ prefix: 3 }).string("prefix", "x")).toThrow(
      new TypeError("someStore: `prefix` must be a string, got 3."),
    );
    expect(() => read({ prefix: "" }).string("prefix", "x", { nonEmpty: true })).toThrow(
      new TypeError('someStore: `prefix` must be a non-empty string, got "".'),
    );
  });

  it("a function or nothing", () => {
    const onError = () => {};
    expect(read({ onError }).callback("onError")).toBe(onError);
    expect(read({}).callback("onError")).toBeUndefined();
    expect(() => read({ onError: "log" }).callback("onError")).toThrow(
      new TypeError('someStore: `onError` must be a function, got "log".'),
    );
  });
});

describe("readOptions: flag, oneOf", () => {
  it("true or false, the fallback when not given", () => {
    expect(read({ create: false }).flag("create", true)).toBe(false);
    expect(read({}).flag("create", true)).toBe(true);
    expect(() => read({ create: "no" }).flag("create", true)).toThrow(
      new TypeError('someStore: `create` must be true or false, got "no".'),
    );
  });

  it("one of the choices, naming them when it is not", () => {
    const choices = ["full", "redacted"] as const;
    expect(read({ bodies: "redacted" }).oneOf("bodies", choices, "full")).toBe("redacted");
    expect(read({}).oneOf("bodies", choices, "full")).toBe("full");
    expect(() => read({ bodies: "none" }).oneOf("bodies", choices, "full")).toThrow(
      new TypeError('someStore: `bodies` must be "full" or "redacted", got "none".'),
    );
  });
});

describe("shown", () => {
  it("numbers and strings as written (long strings cut), anything else by its kind", () => {
    expect(shown(-1)).toBe("-1");
    expect(shown("a")).toBe('"a"');
    expect(shown("x".repeat(100))).toBe(`"${"x".repeat(60)}…"`);
    expect(shown({ a: 1 })).toBe("an object");
    expect(shown([1])).toBe("a list");
    expect(shown(() => {})).toBe("a function");
    expect(shown(new Date(Number.NaN))).toBe("an invalid Date");
    expect(shown(undefined)).toBe("undefined");
  });
});
